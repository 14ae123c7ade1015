import BoardParts
import LinuxIO
import Platform
import Synchronization
import TestSupport
import Testing

/// The libgpiod backend, whichever API CGPIODShim was compiled against: scripts/test runs this suite twice, against
/// Debian's libgpiod 1.6 and against libgpiod 2 built from PyPI's sources (scripts/test-gpiod2, which sets
/// STRESSMON_EXPECT_GPIOD_API=2). Both must find chips, fail and explain alike. This machine has no GPIO chip
/// (no CONFIG_GPIOLIB), so requests and line values are exercised on hardware only (docs/boards.md).
@Suite("GPIO through libgpiod (v1 or v2, chosen at compile time)")
struct GPIODChipTests {
  @Test("The backend compiled in is the libgpiod the build was pointed at, and says its version")
  func backendVersion() {
    let backend = GPIODChip.backend
    #expect(backend.api == 1 || backend.api == 2)
    #expect(backend.version.hasPrefix("\(backend.api)."))
    if let expected = getenv("STRESSMON_EXPECT_GPIOD_API").map({ String(cString: $0) }) {
      #expect("\(backend.api)" == expected, "built against libgpiod \(backend.version)")
    }
  }

  @Test("Opening a chip by a label no chip has fails with a message naming the label and how to find labels")
  func missingChipNamesTheLabel() {
    // Given a label no GPIO controller has
    let label = "pinctrl-bcm2711-absent-\(getpid())"
    // When the real libgpiod path opens it from /dev
    #expect {
      _ = try GPIODChip(label: label)
    } throws: { error in
      // Then the error names the chip, says what failed and what to do
      guard let error = error as? DeviceError else { return false }
      return error.kind == .gpio && error.errno == ENOENT && error.description.contains("'\(label)'")
        && error.description.contains("open by label") && error.description.contains("gpiodetect")
    }
  }

  @Test("Entries named gpiochipN that are no GPIO chips (a file, /dev/null, a directory) are passed over alike")
  func notChipsArePassedOver() throws {
    // Given a device directory whose gpiochip entries are not GPIO character devices (each backend reports them
    // with a different errno: ENOTTY, ENODEV, EISDIR)
    let directory = try TemporaryDirectory("gpio-dev")
    defer { directory.remove() }
    _ = try directory.write("gpiochip0", "not a device")
    #expect(symlink("/dev/null", directory.file("gpiochip1")) == 0)
    #expect(mkdir(directory.file("gpiochip2"), 0o755) == 0)
    _ = try directory.write("gpiochipX", "not numbered")
    #expect(GPIOChipDirectory.chipPaths(in: directory.path).count == 3)
    // When a chip is looked up by label there
    #expect {
      _ = try GPIODChip(label: "pinctrl-rp1", directory: directory.path)
    } throws: { error in
      // Then it is "no such label" with the usual fix, not an error about one of the entries
      guard let error = error as? DeviceError else { return false }
      return error.errno == ENOENT && error.description.contains("GPIO chip 'pinctrl-rp1': open by label failed")
        && error.hint.contains("gpiodetect") && !error.description.contains("gpiochip0")
    }
  }

  @Test("gpiochipN entries are tried in the order of N, other names are ignored")
  func chipOrder() throws {
    let directory = try TemporaryDirectory("gpio-order")
    defer { directory.remove() }
    for name in ["gpiochip10", "gpiochip2", "gpiochip0", "gpiochip", "gpiochip1a", "i2c-1"] {
      _ = try directory.write(name, "")
    }
    let paths = GPIOChipDirectory.chipPaths(in: directory.path)
    #expect(paths == ["gpiochip0", "gpiochip2", "gpiochip10"].map(directory.file))
    #expect(GPIOChipDirectory.chipPaths(in: directory.file("absent")) == [])
    #expect(GPIOChipDirectory.isNotAChip(errno: ENOTTY) && GPIOChipDirectory.isNotAChip(errno: EISDIR))
    #expect(!GPIOChipDirectory.isNotAChip(errno: EACCES))
  }

  @Test("The consumer name is stressmon, so gpioinfo shows who holds a line")
  func consumerName() {
    #expect(GPIOConsumer.name == "stressmon")
  }
}

@Suite("Line names: GPIOn falls back to offset n on the Raspberry Pi's BCM-numbered chips")
struct GPIOLineResolutionTests {
  /// RP1 on a Pi 5 with an early 6.1 kernel: the header lines are named after their pins.
  static let pi5Kernel61: [String: UInt32] = ["PIN11": 17, "PIN18": 24, "PIN22": 25, "PIN29": 5, "PIN12": 18]

  @Test("A name the chip has wins; GPIOn absent on pinctrl-rp1 (PIN11 there) becomes offset n")
  func fallbackOnRP1() {
    let names = Self.pi5Kernel61
    let resolve = { (line: GPIOLineID) in
      GPIOLineResolver.resolve(line, chipLabel: "pinctrl-rp1", lineCount: 54) { names[$0] }
    }
    #expect(resolve(.name("PIN11")) == .named("PIN11", offset: 17))
    #expect(resolve(.name("GPIO17")) == .bcmFallback("GPIO17", offset: 17))
    #expect(resolve(.name("GPIO24")).lineOffset == 24)
    #expect(resolve(.offset(5)) == .offset(5))
    // Beyond the chip's lines, and names that are not GPIOn, are not guessed
    #expect(resolve(.name("GPIO54")) == .missing)
    #expect(resolve(.offset(54)) == .missing)
    #expect(resolve(.name("LED_GREEN")) == .missing)
  }

  @Test("On a chip whose offsets are not BCM numbers, a missing GPIOn stays missing",
        arguments: ["gpio-mockup-A", "raspberrypi-exp-gpio", "pinctrl-bcm2712"])
  func noFallbackElsewhere(label: String) {
    #expect(GPIOLineResolver.resolve(.name("GPIO17"), chipLabel: label, lineCount: 64) { _ in nil } == .missing)
  }

  @Test("Every Raspberry Pi header chip falls back the same way",
        arguments: ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"])
  func fallbackOnEveryPi(label: String) {
    #expect(GPIOLineResolver.resolve(.name("GPIO18"), chipLabel: label, lineCount: 54) { _ in nil }
      == .bcmFallback("GPIO18", offset: 18))
  }

  @Test("Only GPIO followed by digits is a BCM number")
  func bcmNumbers() {
    #expect(GPIOLineResolver.bcmNumber("GPIO0") == 0)
    #expect(GPIOLineResolver.bcmNumber("GPIO27") == 27)
    for name in ["GPIO", "gpio17", "GPIO17a", "GPIO_GCLK", "PIN11", "GPIO-1", "GPIO１"] {
      #expect(GPIOLineResolver.bcmNumber(name) == nil, "\(name)")
    }
  }
}

@Suite("Simulated GPIO chip: requests, timeline and release")
struct GPIOSimulationTests {
  @Test("Output lines record every change with the caller's time, and release is recorded once")
  func timelineAndRelease() throws {
    // Given a chip whose clock the test controls
    let time = TestTime()
    let chip = SimulatedGPIOChip(label: "sim", timestamp: { time.now })
    let led = try chip.requestOutput(.name("LED"), initial: false)
    // When the line is driven at 0, 150 and 300 ms and then released twice
    try led.set(true)
    time.now = 150
    try led.set(false)
    time.now = 300
    led.release()
    led.release()
    // Then the events are exactly those, and the line refuses further use
    #expect(chip.events.map(\.description) == [
      "0 ms LED requested off", "0 ms LED on", "150 ms LED off", "300 ms LED released",
    ])
    #expect(led.isReleased)
    #expect(throws: DeviceError.self) { try led.set(true) }
    #expect(chip.requestedLines.isEmpty)
  }

  @Test("A line requested twice is refused with EBUSY; closing the chip releases what is left")
  func doubleRequestAndClose() throws {
    let chip = SimulatedGPIOChip(label: "sim", timestamp: { 0 })
    let first = try chip.requestOutput(.offset(17))
    #expect {
      _ = try chip.requestOutput(.offset(17))
    } throws: { ($0 as? DeviceError)?.errno == EBUSY }
    chip.close()
    #expect(first.isReleased)
    #expect(chip.events.last?.change == .released)
  }

  @Test("Input lines read what the simulation sets")
  func inputs() throws {
    let chip = SimulatedGPIOChip(label: "sim", timestamp: { 0 })
    let busy = try chip.requestInput(.name("BUSY"))
    #expect(try busy.get() == false)
    chip.setInput("BUSY", true)
    #expect(try busy.get() == true)
  }
}

/// A settable clock for the simulated chip.
final class TestTime: Sendable {
  private let value = Mutex<Int64>(0)
  var now: Int64 {
    get { value.withLock { $0 } }
    set { value.withLock { $0 = newValue } }
  }
}
