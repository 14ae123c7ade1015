import LinuxIO
import Platform
import Synchronization
import Testing

@Suite("GPIO through libgpiod v1 on a machine without the chip")
struct GPIODChipTests {
  @Test("Opening a chip by a label no chip has fails with a message naming the label and how to find labels")
  func missingChipNamesTheLabel() {
    // Given a label no GPIO controller has (on this machine there is no /dev/gpiochip at all)
    let label = "pinctrl-bcm2711-absent-\(getpid())"
    // When the real libgpiod path opens it
    #expect {
      _ = try GPIODChip(label: label)
    } throws: { error in
      // Then the error names the chip, says what failed and what to do
      guard let error = error as? DeviceError else { return false }
      return error.kind == .gpio && error.errno == ENOENT && error.description.contains("'\(label)'")
        && error.description.contains("open by label") && error.description.contains("gpiodetect")
    }
  }

  @Test("The consumer name is stressmon, so gpioinfo shows who holds a line")
  func consumerName() {
    #expect(GPIOConsumer.name == "stressmon")
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
