import Config
import LinuxIO
import Monitor
import Platform
import Sensors
import Testing

/// The MAX30102 driver against the register-level emulator fed with a real recording.
@Suite("MAX30102 driver")
struct MAX30102DriverTests {
  let ms = EmulatorFixture.ms

  @Test("Samples out equal samples in, across many FIFO wrap-arounds, with 18-bit masking and byte order")
  func samplesOutEqualSamplesIn() async throws {
    // Given: a started sensor at 100 samples/s, polled at uneven intervals that never let the FIFO fill.
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    // When: 30 s of virtual time (3000 samples, the 32-slot FIFO wraps ~94 times).
    let blocks = try fixture.run(for: 30_000 * ms, waits: [37 * ms, 120 * ms, 250 * ms, 8 * ms, 300 * ms, 61 * ms])
    // Then: every pushed sample came out once, in order, with the emulator's values, and no gaps.
    let out = flatten(blocks)
    let log = fixture.emulator.log
    #expect(out.count >= 2990)
    #expect(blocks.allSatisfy { $0.gapBefore == 0 })
    #expect(fixture.emulator.droppedCount == 0)
    #expect(out.count == log.count - fixture.emulator.unreadCount)
    for (sample, expected) in zip(out, log) {
      #expect(sample.index == expected.index)
      #expect(sample.ir == expected.ir)
      #expect(sample.red == expected.red)
    }
    // Raw intensity: within 18 bits (the emulator sets bits 23:18 to junk), pulses in the counts.
    #expect(out.allSatisfy { $0.ir >= 0 && $0.ir <= 262_143 && $0.red >= 0 && $0.red <= 262_143 })
    let irValues = out.map(\.ir)
    #expect(irValues.max()! - irValues.min()! > 1_000)
  }

  @Test("A FIFO overflow becomes a gap of exactly the lost samples, never stitched")
  func overflowGap() async throws {
    // Given
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    let before = try fixture.run(for: 2_000 * ms, waits: [100 * ms])
    // When: the host stalls 700 ms: 70 samples produced, 32 kept, 38 dropped (OVF_COUNTER = 38 would saturate;
    // stall 500 ms instead for an exact count first).
    let afterStall = try fixture.poll(after: 500 * ms)
    let next = try fixture.run(for: 500 * ms, waits: [100 * ms])
    // Then: the 32 kept samples continue the stream; the next block opens with the dropped samples as its gap.
    let dropped = fixture.emulator.droppedCount
    #expect(dropped == 18)
    #expect(afterStall.count == 1)
    #expect(afterStall.first?.gapBefore == 0)
    #expect(afterStall.first?.count == 32)
    #expect(afterStall.first?.firstSampleIndex == flatten(before).last!.index + 1)
    let firstAfter = try #require(next.first)
    #expect(firstAfter.gapBefore == dropped)
    #expect(firstAfter.firstSampleIndex == afterStall[0].endSampleIndex + dropped)
    let log = fixture.logByIndex
    for sample in flatten(afterStall + next) { #expect(log[sample.index]?.ir == sample.ir) }
  }

  @Test("A long stall saturates OVF_COUNTER; the gap is sized from the clock to within one sample")
  func saturatedOverflow() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    _ = try fixture.run(for: 1_000 * ms, waits: [100 * ms, 70 * ms])
    // When: a 5.03 s stall at 100 samples/s: ~471 samples dropped, far beyond the counter's 31.
    let stalled = try fixture.poll(after: 5_030 * ms)
    let next = try fixture.run(for: 300 * ms, waits: [100 * ms])
    // Then
    let dropped = fixture.emulator.droppedCount
    #expect(dropped > 400)
    let gap = try #require(next.first).gapBefore
    #expect(abs(gap - dropped) <= 1, "gap \(gap), dropped \(dropped)")
    // The timeline index after the gap is the emulator's to within that sample.
    let firstIndex = next[0].firstSampleIndex
    let truth = fixture.emulator.log.first { $0.index > stalled.last!.endSampleIndex - 1 }!.index
    #expect(abs(firstIndex - truth) <= 1)
  }

  @Test("A NACK or a bus error in the middle of a FIFO read is retried without losing a sample", arguments: [
    I2CFault.nack, .busError(afterBytes: 7), .busError(afterBytes: 40), .busError(afterBytes: 0),
  ])
  func readErrorsRecover(fault: I2CFault) async throws {
    // Given
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    _ = try fixture.run(for: 500 * ms, waits: [100 * ms])
    // When: the next FIFO data transfer fails (a bus error pops the bytes already clocked out), and so does a
    // pointer read later on.
    fixture.bus.injectFault(fault, onRegister: MAX30102Register.fifoData)
    fixture.bus.injectFault(.nack, onRegister: MAX30102Register.fifoWritePointer, skip: 2)
    let blocks = try fixture.run(for: 3_000 * ms, waits: [230 * ms, 90 * ms])
    // Then: the faults happened, and the samples are all there, equal, without a gap.
    #expect(fixture.bus.pendingFaultCount == 0)
    #expect(fixture.bus.failedTransferCount == 2)
    #expect(blocks.allSatisfy { $0.gapBefore == 0 })
    let log = fixture.logByIndex
    let out = flatten(blocks)
    #expect(zip(out, out.dropFirst()).allSatisfy { $0.index + 1 == $1.index })
    for sample in out { #expect(log[sample.index]?.ir == sample.ir && log[sample.index]?.red == sample.red) }
  }

  @Test("A bus error while the FIFO is full cannot be retried safely: the FIFO is flushed and the loss is a gap")
  func unrecoverableReadFlushes() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    _ = try fixture.run(for: 500 * ms, waits: [100 * ms])
    // When: a stall fills the FIFO, and the burst read breaks after 10 of its 16 samples.
    fixture.bus.injectFault(.busError(afterBytes: 60), onRegister: MAX30102Register.fifoData)
    let blocks = try fixture.poll(after: 450 * ms) + fixture.run(for: 1_000 * ms, waits: [100 * ms])
    // Then: a gap of the samples popped, flushed and dropped, sized from the clock within one sample; the
    // samples around it are the emulator's.
    let gapBlock = try #require(blocks.first { $0.gapBefore > 0 })
    #expect(blocks.filter { $0.gapBefore > 0 }.count == 1)
    // 10 popped by the broken transfer + 22 flushed + 13 dropped while the FIFO was full (45 produced in 450 ms).
    #expect(abs(gapBlock.gapBefore - 45) <= 1, "gap \(gapBlock.gapBefore)")
    let index = gapBlock.firstSampleIndex
    let log = fixture.logByIndex
    let truth = fixture.emulator.log.first { $0.ir == gapBlock.ir[0] && $0.index >= index - 1 }?.index
    #expect(truth != nil)
    #expect(abs((truth ?? 0) - index) <= 1, "block says \(index), emulator \(String(describing: truth))")
    for sample in flatten(blocks) where sample.index < index { #expect(log[sample.index]?.ir == sample.ir) }
  }

  @Test("A sensor that stops answering is reported with errno and the wiring hint, not retried forever")
  func persistentNack() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    fixture.bus.detach(address: MAX30102Bits.address)
    let error = #expect(throws: SensorError.self) { _ = try fixture.poll(after: 100 * ms) }
    guard case .device(let device)? = error else {
      Issue.record("expected a device error, got \(String(describing: error))")
      return
    }
    #expect(device.errno == EREMOTEIO)
    #expect(device.hint.contains("0x57"))
    #expect(device.hint.contains("wiring"))
    #expect(error?.sysexitCode == 69)
  }

  @Test("Identity: PART_ID 0x15 passes, anything else is refused before any write")
  func identity() async throws {
    var options = EmulatorFixture.loggingOptions()
    options.partID = 0x11
    let fixture = try EmulatorFixture(options: options)
    let error = await #expect(throws: SensorError.self) { try await fixture.driver.start() }
    #expect(error?.description.contains("part id 0x11") == true)
    #expect(fixture.emulator.producedCount == 0)
    let good = try EmulatorFixture()
    try good.driver.checkIdentity()
    #expect(try good.driver.revisionID() == 0x03)
  }

  /// (ADC rate, averaging, pulse width µs, range nA, LEDs) and words the refusal must contain.
  @Test("Settings the datasheet forbids are refused with the reason and the alternative", arguments: [
    ((800, 4, 411, 4096, 2), "411 µs"),
    ((1600, 4, 118, 4096, 2), "pulse_width_us = 69"),
    ((300, 4, 411, 4096, 2), "not a MAX3010x sample rate"),
    ((400, 3, 411, 4096, 2), "averaging"),
    ((400, 4, 411, 5000, 2), "ADC range"),
    ((50, 4, 411, 4096, 2), "25-1000"),
    ((400, 4, 411, 4096, 3), "only red and IR"),
  ])
  func forbiddenSettings(settings: (Int, Int, Int, Int, Int), words: String) async throws {
    var configuration = MAX30102Configuration()
    (configuration.sampleRateHz, configuration.averaging, configuration.pulseWidthMicroseconds) =
      (settings.0, settings.1, settings.2)
    (configuration.adcRangeNanoamps, configuration.leds) = (settings.3, settings.4)
    let fixture = try EmulatorFixture(configuration: configuration)
    let error = await #expect(throws: SensorError.self) { try await fixture.driver.start() }
    #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    #expect(error?.sysexitCode == 65)
    #expect(fixture.bus.transferCount == 0)
  }

  @Test("A forbidden setting from a board file names the file and line")
  func forbiddenSettingFromBoard() throws {
    let document = try TOMLParser.parse(
      "[board]\nname = \"x\"\n[i2c]\nbus = 1\n[sensor]\npart = \"max30102\"\nsample_rate_hz = 1000\npulse_width_us = 411",
      path: "boards/x.toml")
    let board = try BoardLoader.board(from: document)
    let error = #expect(throws: SensorError.self) { _ = try MAX30102Configuration(board: board.sensor) }
    #expect(error?.description.hasPrefix("boards/x.toml:7: 1000 samples/s with 411 µs pulses") == true,
            "\(String(describing: error))")
  }

  @Test("Red/IR swap: a clone board reads right with swap_red_ir, and the wrong way round without")
  func redIRSwap() async throws {
    var clone = EmulatorFixture.loggingOptions()
    clone.ledsSwapped = true
    var swapped = MAX30102Configuration()
    swapped.swapRedIR = true
    for (configuration, crossed) in [(swapped, false), (MAX30102Configuration(), true)] {
      let fixture = try EmulatorFixture(configuration: configuration, options: clone)
      try await fixture.driver.start()
      let out = flatten(try fixture.run(for: 1_000 * ms, waits: [100 * ms]))
      let log = fixture.logByIndex
      #expect(!out.isEmpty)
      for sample in out {
        let truth = try #require(log[sample.index])
        #expect(sample.ir == (crossed ? truth.red : truth.ir))
        #expect(sample.red == (crossed ? truth.ir : truth.red))
      }
    }
  }

  @Test("MAX30105 with three LEDs: green comes through the same driver")
  func threeLEDs() async throws {
    var options = EmulatorFixture.loggingOptions()
    options.part = .max30105
    var configuration = MAX30102Configuration()
    configuration.part = .max30105
    configuration.leds = 3
    configuration.sampleRateHz = 200
    configuration.averaging = 2
    let fixture = try EmulatorFixture(configuration: configuration, options: options)
    try await fixture.driver.start()
    let blocks = try fixture.run(for: 2_000 * ms, waits: [80 * ms])
    let log = fixture.logByIndex
    let samples = blocks.flatMap { block in (0..<block.count).map { (block.firstSampleIndex + $0, block.green[$0]) } }
    #expect(samples.count >= 195)
    for (index, green) in samples { #expect(log[index]?.green == green) }
    #expect(samples.allSatisfy { $0.1 > 10_000 })
  }

  @Test("The measured sample rate matches the configured one, and a fast oscillator is noticed")
  func sampleRate() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    let nominal = try await fixture.driver.measureSampleRate(duration: 2_000 * ms)
    #expect(abs(nominal - 100) < 1.5)
    var fast = EmulatorFixture.loggingOptions()
    fast.oscillatorError = 0.08
    let clone = try EmulatorFixture(options: fast)
    try await clone.driver.start()
    let measured = try await clone.driver.measureSampleRate(duration: 2_000 * ms)
    #expect(abs(measured - 108) < 1.5)
  }

  @Test("Die temperature reads as the part reports it")
  func temperature() async throws {
    var options = EmulatorFixture.loggingOptions()
    options.dieTemperature = -4.75
    let fixture = try EmulatorFixture(options: options)
    try await fixture.driver.start()
    #expect(try await fixture.driver.readTemperature() == -4.75)
  }

  @Test("Shutdown stops sampling")
  func shutdown() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    _ = try fixture.run(for: 500 * ms, waits: [100 * ms])
    try fixture.driver.shutdown()
    let produced = fixture.emulator.producedCount
    fixture.clock.advance(by: 1_000 * ms)
    #expect(fixture.emulator.unreadCount == 0)
    #expect(fixture.emulator.producedCount == produced)
  }

  @Test("Registers hold the values Linux's max30102 driver writes; shutdown sets SHDN alone, keeping MODE")
  func registerValues() async throws {
    let fixture = try EmulatorFixture()
    try await fixture.driver.start()
    let address = MAX30102Bits.address
    // The kernel's chip init for 400 samples/s, 411 µs pulses, 4096 nA: ADC 1 << 5 | SR 3 << 2 | PW 3 = 0x2F.
    #expect(try fixture.bus.readRegister(address: address, register: MAX30102Register.spo2Configuration) == 0x2F)
    // Averaging 4 (SMP_AVE code 2 in bits 7:5), rollover off, A_FULL at 0 empty slots.
    #expect(try fixture.bus.readRegister(address: address, register: MAX30102Register.fifoConfiguration) == 0x40)
    #expect(try fixture.bus.readRegister(address: address, register: MAX30102Register.modeConfiguration) == 0x03)
    try fixture.driver.shutdown()
    #expect(try fixture.bus.readRegister(address: address, register: MAX30102Register.modeConfiguration) == 0x83)
    // Multi-LED slots as the datasheet's example: SLOT1 red, SLOT2 IR in 0x11 (0x21); SLOT3 green in 0x12 (0x03).
    typealias Slots = MAX30102Register.MultiLEDControl
    #expect(Slots.slots(Slots.led1, Slots.led2) == 0x21 && Slots.slots(Slots.led3, Slots.none) == 0x03)
    #expect(Slots.highSlot.get(0x21) == Slots.led2 && Slots.lowSlot.get(0x21) == Slots.led1)
  }
}
