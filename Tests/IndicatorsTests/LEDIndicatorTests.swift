import Indicators
import LinuxIO
import Platform
import StressModel
import Testing

@Suite("LED indicator on simulated lines and a virtual clock")
struct LEDIndicatorTests {
  static let single = LEDWiring(chipLabel: "sim", layout: .single(.name("LED")))

  /// The (time, on) changes of one line.
  static func changes(_ events: [GPIOEvent], line: String) -> [(Int64, Bool)] {
    events.compactMap { event in
      guard event.line == line, case .set(let active) = event.change else { return nil }
      return (event.milliseconds, active)
    }
  }

  @Test("Moderate double-blinks: the line goes on/off at exactly 0, 150, 300, 450 ms and again 2 s later")
  func exactTimeline() async throws {
    // Given an indicator on a simulated LED and a virtual clock
    let clock = VirtualIndicatorClock()
    let (indicator, chip) = try LEDIndicator.simulated(wiring: Self.single, clock: clock)
    // When it shows "moderate" and its scheduler runs for 4.2 s of virtual time
    try await indicator.show(.category(.moderate))
    try await indicator.run(untilMilliseconds: 4_200)
    // Then the line changed exactly at the table's instants
    let changes = Self.changes(chip.events, line: "LED")
    #expect(changes.map(\.0) == [0, 150, 300, 450, 2_000, 2_150, 2_300, 2_450, 4_000, 4_150])
    #expect(changes.map(\.1) == [true, false, true, false, true, false, true, false, true, false])
  }

  @Test("Showing the same state again keeps the rhythm; a new state restarts from its first step at once")
  func stateChanges() async throws {
    let clock = VirtualIndicatorClock()
    let (indicator, chip) = try LEDIndicator.simulated(wiring: Self.single, clock: clock)
    try await indicator.show(.category(.mild))
    try await indicator.run(untilMilliseconds: 1_500)
    try await indicator.show(.category(.mild))  // re-reported every window
    try await indicator.run(untilMilliseconds: 2_500)
    try await indicator.show(.category(.high))
    try await indicator.run(untilMilliseconds: 2_800)
    let changes = Self.changes(chip.events, line: "LED")
    #expect(changes.map(\.0) == [0, 1_000, 2_000, 2_625, 2_750])
    #expect(changes.map(\.1) == [true, false, true, false, true])
  }

  @Test("The timeline printer shows every LED at each change, for the simulated board's terminal")
  func timelineLines() async throws {
    let clock = VirtualIndicatorClock()
    let wiring = LEDWiring(chipLabel: "sim", layout: .rgb(red: .name("R"), green: .name("G"), blue: .name("B")))
    let (indicator, chip) = try LEDIndicator.simulated(wiring: wiring, clock: clock)
    try await indicator.show(.category(.high))
    try await indicator.run(untilMilliseconds: 300)
    let lines = LEDTimeline.lines(events: chip.drainEvents(), wiring: wiring)
    #expect(lines == [
      "   0.000 s  red ●  green ○  blue ○",
      "   0.125 s  red ○  green ○  blue ○",
      "   0.250 s  red ●  green ○  blue ○",
    ])
  }

  @Test("Shutdown turns every LED off, then releases every line and closes the chip")
  func releasePath() async throws {
    // Given a bar with the high LED blinking
    let clock = VirtualIndicatorClock()
    let wiring = LEDWiring(
      chipLabel: "sim", layout: .bar(relaxed: .offset(5), mild: .offset(6), moderate: .offset(13), high: .offset(19)))
    let (indicator, chip) = try LEDIndicator.simulated(wiring: wiring, clock: clock)
    try await indicator.show(.category(.high))
    #expect(chip.value(of: "offset 19") == true)
    // When the daemon shuts down (exit or SIGTERM)
    await indicator.shutdown()
    await indicator.shutdown()  // idempotent
    // Then the LED is off before its line is released, and nothing is left requested
    let events = chip.events.filter { $0.line == "offset 19" }
    #expect(events.suffix(2).map(\.change) == [.set(active: false), .released])
    #expect(chip.requestedLines.isEmpty)
    #expect(await indicator.linesReleased)
    // And the indicator no longer touches the lines
    let eventCount = chip.events.count
    try await indicator.show(.category(.mild))
    #expect(try await indicator.tick() == nil)
    #expect(chip.events.count == eventCount)
  }

  @Test("A line the board file names twice is refused and the lines already requested are released")
  func failedRequestReleases() throws {
    let chip = SimulatedGPIOChip(label: "sim", timestamp: { 0 })
    let wiring = LEDWiring(chipLabel: "sim", layout: .rgb(red: .offset(5), green: .offset(5), blue: .offset(6)))
    #expect(throws: DeviceError.self) { _ = try LEDIndicator(wiring: wiring, chip: chip, clock: VirtualIndicatorClock()) }
    #expect(chip.requestedLines.isEmpty)
  }

  @Test("On a machine without the GPIO chip, opening the real LEDs fails naming the chip label")
  func realChipMissing() {
    let wiring = LEDWiring(chipLabel: "pinctrl-absent-\(getpid())", layout: .single(.offset(17)))
    #expect {
      _ = try LEDIndicator.open(wiring: wiring)
    } throws: { error in
      (error as? DeviceError)?.description.contains("GPIO chip 'pinctrl-absent-\(getpid())'") == true
    }
  }
}
