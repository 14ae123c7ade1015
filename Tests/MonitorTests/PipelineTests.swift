import Config
import FoundationEssentials
import Indicators
import LinuxIO
import Monitor
import Sensors
import Store
import StressModel
import Synchronization
import Testing
import TestSupport

/// The whole pipeline on the simulated board, in process, on virtual clocks (`--speed max`): a real recording
/// through the emulated MAX30102 to the store, the LEDs and the panel.
@Suite("Monitor pipeline on the simulated board")
struct PipelineTests {
  @Test("states come in order and every window reaches the store, the LEDs and the panel")
  func windowsReachEveryOutput() async throws {
    // Given the simulated board replaying the bundled recording
    let run = try SimulatedRun("outputs")
    defer { run.directory.remove() }

    // When it runs for 200 s of data
    let (summary, log) = try await run.run(duration: 200)

    // Then the states go starting → settling → learning the baseline (no personal baseline yet)
    #expect(Array(log.phaseNames.prefix(3)) == ["starting", "settling", "learning_baseline"])
    #expect(!log.stateNames.contains("error"))
    // and a window every 10 s from 60 s on, each stored under the id it was reported with
    let windows = log.windows
    #expect(windows.map(\.summary.endSeconds) == Array(stride(from: 60.0, through: 200.0, by: 10.0)))
    #expect(summary.windows == windows.count)
    let stored = try run.storedMeasurements()
    #expect(stored.map(\.record.id) == windows.map(\.record.id))
    #expect(stored.map(\.record) == windows.map(\.record))
    #expect(summary.storedMeasurements == windows.count && summary.unwrittenMeasurements == 0)
    #expect(summary.storedIBIs > 150)
    // and the LEDs went from "measuring" to the category of the windows, lit as that category's program says
    let categories = Set(windows.compactMap(\.summary.category))
    #expect(!categories.isEmpty)
    #expect(log.ledStates.first == .measuring)
    let shownCategories = Set(log.ledStates.compactMap { if case .category(let c) = $0 { c.rawValue } else { nil } })
    #expect(shownCategories == categories)
    let wiring = try #require(BoardOutputsView.wiring(run.board))
    let firstCategory = try #require(windows.first?.summary.category.flatMap(StressCategory.init(rawValue:)))
    let program = LEDProgram(state: .category(firstCategory), wiring: wiring)
    let frameAtFirstWindow = try #require(log.ledFrames.first { $0.seconds >= 60 })
    #expect(frameAtFirstWindow.lit.map(\.on) == BoardOutputsView.bits(program.litMask(atElapsed: 0), count: 3))
    // and the panel refreshed (fully first, then for the category), its picture written as a PNG
    #expect(log.panelDecisions.first == .full(.unknownScreen))
    #expect(log.panelDecisions.count >= 2)
    let png = try Data(contentsOf: URL(fileURLWithPath: run.board.epaper.output!))
    #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    // and at the end the panel sleeps and the LED lines are released
    #expect(summary.panelAsleep == true)
    #expect(summary.ledsReleased == true)
    #expect(log.ledFrames.last?.lit.allSatisfy { !$0.on } == true)
  }

  @Test("the baseline switches from the default to the personal one after 30 good windows")
  func baselineBecomesPersonal() async throws {
    // Given the simulated board and an empty store
    let run = try SimulatedRun("baseline")
    defer { run.directory.remove() }

    // When it runs long enough for 30 good windows and some more
    let (summary, log) = try await run.run(duration: 480)

    // Then a personal baseline is announced, learning gives way to measuring, and stays there
    let personal = try #require(log.baselines.first { $0.isPersonal })
    #expect(personal.windowCount >= 30)
    let phases = log.phaseNames
    let learning = try #require(phases.firstIndex(of: "learning_baseline"))
    let measuring = try #require(phases.firstIndex(of: "measuring"))
    #expect(learning < measuring)
    #expect(summary.baseline?.isPersonal == true)
    // and the stored rows switch once, from the default baseline to the personal one, scored against it
    let rows = try run.storedMeasurements().map(\.record)
    let firstPersonal = try #require(rows.firstIndex { $0.baselinePersonal })
    #expect(firstPersonal >= 30)
    #expect(rows[..<firstPersonal].allSatisfy { !$0.baselinePersonal && $0.baselineHrvMs == PersonalBaseline.default.hrvMs })
    #expect(rows[firstPersonal...].allSatisfy { $0.baselinePersonal })
    for row in rows[firstPersonal...] {
      let baseline = PersonalBaseline(
        hrvMs: row.baselineHrvMs, restingHeartRateBpm: row.restingHeartRateBpm, isPersonal: true, windowCount: 0,
        computedAt: nil)
      guard let level = row.stressLevel, let hrv = row.sdnnMs, let hr = row.heartRateBpm else { continue }
      #expect(abs(level - StressCalculator().level(hrvMs: hrv, heartRateBpm: hr, baseline: baseline)) < 1e-9)
    }
    #expect(abs(rows[firstPersonal].baselineHrvMs - personal.hrvMs) < 1e-9)
  }

  @Test("a store that cannot be written shows an error while the LEDs keep the category and measuring goes on")
  func storeFailureShowsWhileMeasuring() async throws {
    // Given a database path under a regular file (its directory can never be created)
    var run = try SimulatedRun("store-failure")
    defer { run.directory.remove() }
    let blocker = try run.directory.write("not-a-directory", "x")
    run.configuration.store.database = blocker + "/monitor.db"

    // When it runs for 120 s of data
    let (summary, log) = try await run.run(duration: 120)

    // Then the state says "error" (a store fault) while windows keep coming and are categorised
    let storeFaults = log.statuses.filter { status in status.faults.contains { $0.name == "store" } }
    #expect(!storeFaults.isEmpty)
    #expect(storeFaults.contains { $0.category != nil && $0.name == "error" })
    #expect(summary.windows == 7)
    // and once there is a category the LEDs show it, not the error rhythm (before it, they blink "error")
    let leds = log.ledStates
    let firstCategory = try #require(leds.firstIndex { if case .category = $0 { true } else { false } })
    #expect(!leds[firstCategory...].contains(.error))
    // and the rows that could not be written are reported, not silently lost
    #expect(summary.storedMeasurements == 0)
    #expect(summary.unwrittenMeasurements == 7)
  }

  @Test("lifting the finger shows no contact; putting it back settles and categorises again")
  func noContactAndBack() async throws {
    // Given the simulated board with a handle on the emulated sensor
    var run = try SimulatedRun("contact")
    defer { run.directory.remove() }
    let sensor = EmulatorHandle()
    let board = run.board
    run.environment.makeSource = { options throws(SensorError) in try sensor.makeSource(board: board, options: options) }

    // When the finger is lifted after the first window and put back once "no contact" was shown for a while
    let (_, log) = try await run.run(duration: 330) { event, _ in
      switch event {
      case .window(_, let summary, _) where summary.endSeconds >= 150: sensor.restoreOnce()
      case .window(_, let summary, _) where summary.endSeconds >= 60: sensor.liftOnce()
      default: break
      }
    }

    // Then the states go learning → no contact → settling → learning again, and the LEDs follow
    let phases = log.phaseNames
    let noContact = try #require(phases.firstIndex(of: "no_contact"))
    #expect(phases[..<noContact].contains("learning_baseline"))
    let after = Array(phases[noContact...])
    let settling = try #require(after.firstIndex(of: "settling"))
    #expect(after[settling...].contains("learning_baseline"))
    #expect(log.ledStates.contains(.noContact))
    // and the panel said so
    #expect(log.statuses.contains { $0.panelStatus.contains(.noContact) })
  }

  @Test("an unplugged sensor is an error retried with backoff, and measuring resumes after a gap")
  func sensorLostAndBack() async throws {
    // Given the simulated board whose sensor can be unplugged
    var run = try SimulatedRun("unplug")
    defer { run.directory.remove() }
    let sensor = EmulatorHandle()
    let board = run.board
    run.environment.makeSource = { options throws(SensorError) in try sensor.makeSource(board: board, options: options) }
    run.environment.sensorRetryInitialSeconds = 1
    run.environment.sensorRetryMaximumSeconds = 8

    // When it is unplugged after the first window and plugged back after two failed reopen attempts
    let attemptsSeen = Mutex(0)
    let (summary, log) = try await run.run(duration: 200) { event, _ in
      switch event {
      case .window(_, let summary, _) where summary.endSeconds >= 60: sensor.unplugOnce()
      case .state(let status, _) where status.faults.contains { $0.name == "sensor" }:
        if attemptsSeen.withLock({ $0 += 1; return $0 }) >= 2 { sensor.plugIn() }
      default: break
      }
    }

    // Then the state showed the error with its retry delay, the LEDs the error rhythm, then it settled again
    let faults = log.statuses.flatMap(\.faults).compactMap { fault -> Double? in
      if case .sensor(_, let retry) = fault { retry } else { nil }
    }
    #expect(faults.first == 1)
    #expect(faults.contains(2))
    #expect(log.ledStates.contains(.error))
    let names = log.stateNames
    let error = try #require(names.firstIndex(of: "error"))
    #expect(names[error...].contains("settling"))
    // and the outage is a gap, never stitched across; windows continue after it
    #expect(summary.gaps >= 1 && summary.lostSamples > 0)
    #expect(log.windows.last!.summary.endSeconds == 200)
    #expect(log.notices.contains { $0.hasPrefix("sensor back") })
  }
}

/// The emulated MAX30102 behind the simulated board, built the way the factory builds it, with the test holding
/// the emulator (finger) and a plug between the bus and the driver.
final class EmulatorHandle: Sendable {
  private let state = Mutex<(emulator: MAX30102Emulator?, lifted: Bool, restored: Bool, unplugged: Bool)>(
    (nil, false, false, false))
  let plug = Plug()

  func makeSource(board: Board, options: PulseSourceOptions) throws(SensorError) -> any PulseSource {
    let clock = options.clock ?? VirtualClock()
    let (bus, emulator) = try PulseSourceFactory.emulatedBus(for: board, clock: clock)
    state.withLock { $0.emulator = emulator }
    if plug.isUnplugged {
      throw .device(DeviceErrorView.nack(path: bus.path))
    }
    let configuration = try MAX30102Configuration(board: board.sensor)
    return MAX30102Source(bus: PluggedBus(inner: bus, plug: plug), configuration: configuration, clock: clock, kind: "emulated")
  }

  func liftOnce() {
    guard let emulator = state.withLock({ state -> MAX30102Emulator? in
      guard !state.lifted else { return nil }
      state.lifted = true
      return state.emulator
    }) else { return }
    emulator.setFinger(.absent)
  }

  func restoreOnce() {
    guard let emulator = state.withLock({ state -> MAX30102Emulator? in
      guard state.lifted, !state.restored else { return nil }
      state.restored = true
      return state.emulator
    }) else { return }
    emulator.setFinger(EmulatedFinger())
  }

  func unplugOnce() {
    let first = state.withLock { state -> Bool in
      defer { state.unplugged = true }
      return !state.unplugged
    }
    if first { plug.set(unplugged: true) }
  }

  func plugIn() { plug.set(unplugged: false) }
}

/// Whether the sensor is connected (shared by every bus the handle makes).
final class Plug: Sendable {
  private let unplugged = Mutex(false)
  func set(unplugged value: Bool) { unplugged.withLock { $0 = value } }
  var isUnplugged: Bool { unplugged.withLock { $0 } }
}

/// An emulated bus behind a plug: unplugged, every transfer NACKs, as a loose wire does.
final class PluggedBus: I2CBus, @unchecked Sendable {
  let inner: EmulatedI2CBus
  let plug: Plug

  init(inner: EmulatedI2CBus, plug: Plug) {
    self.inner = inner
    self.plug = plug
  }

  var path: String { inner.path }

  private func check() throws(DeviceError) {
    if plug.isUnplugged { throw DeviceErrorView.nack(path: path) }
  }

  func readRegister(address: UInt8, register: UInt8) throws(DeviceError) -> UInt8 {
    try check()
    return try inner.readRegister(address: address, register: register)
  }

  func writeRegister(address: UInt8, register: UInt8, value: UInt8) throws(DeviceError) {
    try check()
    try inner.writeRegister(address: address, register: register, value: value)
  }

  func readRegisters(address: UInt8, register: UInt8, count: Int) throws(DeviceError) -> [UInt8] {
    try check()
    return try inner.readRegisters(address: address, register: register, count: count)
  }

  func writeRegisters(address: UInt8, register: UInt8, bytes: [UInt8]) throws(DeviceError) {
    try check()
    try inner.writeRegisters(address: address, register: register, bytes: bytes)
  }
}
