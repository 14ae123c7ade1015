#if STRESSMON_KERNEL_LANE
import BoardParts
import Foundation
import Indicators
import LinuxIO
import Raster
import StressModel
import Synchronization
import Testing

extension KernelLaneTests {
  /// The LED indicator and the e-paper driver on real GPIO lines (gpio-sim, Pi 4 layout, the rpi4 board's pins).
  /// The panel itself is still `EPaperEmulator`, which the kernel cannot model: a bridge moves each line's level,
  /// as the kernel shows it in sysfs, to the emulator, and the emulator's BUSY back onto gpio-sim's pull.
  @Suite("LEDs and e-paper lines on gpio-sim")
  struct Indicators {
    static let rgb = LEDWiring(
      chipLabel: "pinctrl-bcm2711", layout: .rgb(red: .name("GPIO5"), green: .name("GPIO6"), blue: .name("GPIO13")))

    @Test("The rgb LED's levels follow the moderate double blink, timed on the kernel's side within 40 ms")
    func ledBlinkTiming() async throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let sampler = try LineSampler(chip: sim, offsets: [5, 6, 13])
      sampler.start()
      // Given the indicator on the real chip, showing "moderate" (yellow: red + green, double blink every 2 s)
      let indicator = try LEDIndicator.open(wiring: Self.rgb)
      let started = LineSampler.monotonicNanoseconds()
      try await indicator.show(.category(.moderate))
      let run = Task { try await indicator.run() }
      try await Task.sleep(for: .milliseconds(4_250))
      run.cancel()
      _ = try? await run.value
      await indicator.shutdown()
      let changes = sampler.stop()
      // Then the kernel saw the program's masks in order, each change within 40 ms of the program's instant
      let program = LEDProgram(state: .category(.moderate), wiring: Self.rgb)
      let expected = program.timeline(toElapsed: 4_000)
      let seen = changes.filter { $0.nanoseconds > started }
      #expect(seen.count >= expected.count, "changes seen: \(seen.map(\.mask))")
      var deviations: [Double] = []
      for (index, step) in expected.enumerated() where index < seen.count {
        let at = Double(seen[index].nanoseconds - started) / 1e6
        deviations.append(at - Double(step.milliseconds))
        #expect(seen[index].mask == step.litMask, "change \(index)")
        #expect(abs(at - Double(step.milliseconds)) <= 40, "change \(index) at \(at) ms, program: \(step.milliseconds)")
      }
      let late = deviations.map { Int($0.rounded()) }
      print("kernel-lane: LED edges, ms after the program's instants: \(late)")
      #expect(changes.first?.mask == 0, "requested dark")
    }

    @Test("An active-low LED: dark is the high level, lit the low level, on the kernel's side")
    func activeLowLED() async throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let wiring = LEDWiring(chipLabel: "pinctrl-bcm2711", layout: .single(.name("GPIO5")), activeLow: true)
      let indicator = try LEDIndicator.open(wiring: wiring)
      #expect(try sim.value(5) == true)
      try await indicator.show(.category(.relaxed))
      #expect(try sim.value(5) == false)
      try await indicator.show(.off)
      #expect(try sim.value(5) == true)
      await indicator.shutdown()
      #expect(await indicator.linesReleased)
    }

    @Test("E-paper full refresh: PWR, RST and DC reach the panel through the kernel; BUSY comes back through it")
    func ePaperSequence() async throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let model = EPaperModel.waveshare2in13V4
      let clock = VirtualIndicatorClock()
      let panel = EPaperEmulator(model: model, clock: clock, powerSwitched: true)
      let wired = try PanelBridge.wire(panel, sim: sim, clock: clock)
      let driver = EPaperDriver(
        model: model, spi: panel.spi, dataCommand: wired.dc, reset: wired.rst, busy: wired.busy, power: wired.pwr,
        clock: clock)
      var frame = Bitmap(width: model.layoutWidth, height: model.layoutHeight)
      frame.fill(Rect(x: 8, y: 8, width: model.layoutWidth / 2, height: model.layoutHeight / 3))
      frame.line(from: (x: 0, y: model.layoutHeight - 1), to: (x: model.layoutWidth - 1, y: 0), thickness: 3)
      // When the driver refreshes the panel
      try await driver.refresh(frame, mode: .full, previous: nil)
      await driver.close()
      // Then the glass shows the frame and the controller refused nothing
      #expect(panel.image == frame)
      #expect(panel.faults == [])
      // And the kernel saw: PWR up first, the reset pulse (high, low 2 ms, high), DC low for every command, and
      // PWR down 2 s after the last command
      let events = wired.log.events
      #expect(events.first == .init(ms: 0, line: "PWR", level: true))
      let resets = events.filter { $0.line == "RST" }.map(\.level)
      #expect(Array(resets.prefix(3)) == [true, false, true])
      let low = try #require(events.first { $0.line == "RST" && !$0.level })
      let high = try #require(events.first { $0.line == "RST" && $0.level && $0.ms > low.ms })
      #expect(high.ms - low.ms == 2)
      let last = try #require(events.last)
      #expect(last.line == "PWR" && !last.level)
      let lastDC = try #require(events.last { $0.line == "DC" })
      #expect(last.ms - lastDC.ms >= EPaperDriver.powerOffDelayMilliseconds)
      // (Released, gpio-sim returns every line to its pull, low here: unlike a Pi's pins, which keep their level.)
      #expect(try sim.value(18) == false)
      // And BUSY went high during the update: the bridge saw the panel busy at least once
      #expect(wired.log.busyHighReads > 0)
    }

    @Test("BUSY left floating: the pull-down holds it low and the refresh fails at the update, naming BUSY")
    func ePaperFloatingBusy() async throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      // Given BUSY pulled up before stressmon takes it (the last user's setting), and no panel on the wire
      try sim.setPull(24, up: true)
      let chip = try GPIODChip(label: "pinctrl-bcm2711")
      defer { chip.close() }
      let dc = try chip.requestOutput(.name("GPIO25"), initial: false)
      let rst = try chip.requestOutput(.name("GPIO17"), initial: true)
      let busy = try chip.requestInput(.name("GPIO24"), bias: .pullDown)
      let pwr = try chip.requestOutput(.name("GPIO18"), initial: false)
      #expect(try sim.pull(24) == "pull-down" && busy.get() == false)
      let model = EPaperModel.waveshare2in13V4
      let clock = VirtualIndicatorClock()
      let nowhere = EPaperEmulator(model: model, clock: clock)
      let driver = EPaperDriver(
        model: model, spi: nowhere.spi, dataCommand: dc, reset: rst, busy: busy, power: pwr, clock: clock)
      let frame = Bitmap(width: model.layoutWidth, height: model.layoutHeight)
      // When it refreshes, it fails at the first update: BUSY never rose
      await #expect {
        try await driver.refresh(frame, mode: .full, previous: nil)
      } throws: { error in
        "\(error)".contains("BUSY never went high after the full refresh")
      }
      // And PWR was switched off again on the kernel's side
      #expect(try sim.value(18) == false)
    }
  }
}

/// Carries the e-paper lines between the kernel and `EPaperEmulator`: after each level the driver sets, the
/// level gpio-sim shows is handed to the emulator's pin; before each BUSY read, the emulator's BUSY is put on
/// gpio-sim's pull, which the driver then reads through the kernel.
enum PanelBridge {
  struct Event: Equatable, Sendable {
    var ms: Int64
    var line: String
    var level: Bool
  }

  final class Log: Sendable {
    private let state = Mutex<(events: [Event], busyHigh: Int)>(([], 0))
    var events: [Event] { state.withLock { $0.events } }
    var busyHighReads: Int { state.withLock { $0.busyHigh } }
    func append(_ event: Event) { state.withLock { $0.events.append(event) } }
    func busyRead(_ high: Bool) { if high { state.withLock { $0.busyHigh += 1 } } }
  }

  struct Wired {
    var dc: any GPIOLine
    var rst: any GPIOLine
    var busy: any GPIOLine
    var pwr: any GPIOLine
    var log: Log
  }

  /// Requests the rpi4 board's panel lines as `EPaperDriver.open` does (DC low, RST high, BUSY with the pull-down,
  /// PWR low) and wires them to `panel`.
  static func wire(_ panel: EPaperEmulator, sim: KernelGPIOSim, clock: VirtualIndicatorClock) throws -> Wired {
    let chip = try GPIODChip(label: sim.label)
    let log = Log()
    func output(
      _ name: String, _ offset: Int, initial: Bool, _ pin: any GPIOLine, _ tag: String
    ) throws -> any GPIOLine {
      let line = try chip.requestOutput(.name(name), initial: initial)
      return Output(line: line, sim: sim, offset: offset, pin: pin, tag: tag, log: log, clock: clock)
    }
    let busy = try chip.requestInput(.name("GPIO24"), bias: .pullDown)
    return Wired(
      dc: try output("GPIO25", 25, initial: false, panel.dataCommand, "DC"),
      rst: try output("GPIO17", 17, initial: true, panel.reset, "RST"),
      busy: Busy(line: busy, sim: sim, offset: 24, pin: panel.busy, log: log),
      pwr: try output("GPIO18", 18, initial: false, panel.power, "PWR"),
      log: log)
  }

  final class Output: GPIOLine, @unchecked Sendable {
    let line: any GPIOLine
    let sim: KernelGPIOSim
    let offset: Int
    let pin: any GPIOLine
    let tag: String
    let log: Log
    let clock: VirtualIndicatorClock

    init(line: any GPIOLine, sim: KernelGPIOSim, offset: Int, pin: any GPIOLine, tag: String, log: Log,
         clock: VirtualIndicatorClock) {
      (self.line, self.sim, self.offset, self.pin, self.tag, self.log, self.clock) =
        (line, sim, offset, pin, tag, log, clock)
    }

    var label: String { line.label }
    func set(_ active: Bool) throws {
      try line.set(active)
      let level = try sim.value(offset)
      log.append(Event(ms: clock.nowMilliseconds(), line: tag, level: level))
      try pin.set(level)
    }
    func get() throws -> Bool { try line.get() }
    func release() {
      line.release()
      pin.release()
    }
    var isReleased: Bool { line.isReleased }
  }

  final class Busy: GPIOLine, @unchecked Sendable {
    let line: any GPIOLine
    let sim: KernelGPIOSim
    let offset: Int
    let pin: any GPIOLine
    let log: Log

    init(line: any GPIOLine, sim: KernelGPIOSim, offset: Int, pin: any GPIOLine, log: Log) {
      (self.line, self.sim, self.offset, self.pin, self.log) = (line, sim, offset, pin, log)
    }

    var label: String { line.label }
    func set(_ active: Bool) throws { try line.set(active) }
    func get() throws -> Bool {
      try sim.setPull(offset, up: try pin.get())
      let level = try line.get()
      log.busyRead(level)
      return level
    }
    func release() {
      line.release()
      pin.release()
    }
    var isReleased: Bool { line.isReleased }
  }
}
#endif
