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
    let defaultHRV = PersonalBaseline.default.hrvMs
    #expect(rows[..<firstPersonal].allSatisfy { !$0.baselinePersonal && $0.baselineHrvMs == defaultHRV })
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
    // Given the simulated board whose finger is lifted at 90 s of data and put back at 180 s
    var run = try SimulatedRun("contact")
    defer { run.directory.remove() }
    let sensor = EmulatorHandle { index, handle in
      if index >= 180 * 100 {
        handle.setFinger(present: true)
      } else if index >= 90 * 100 {
        handle.setFinger(present: false)
      }
    }
    let board = run.board
    run.environment.makeSource = { options throws(SensorError) in
      try sensor.makeSource(board: board, options: options)
    }

    // When it runs for 330 s of data
    let (_, log) = try await run.run(duration: 330)

    // Then the states go learning → no contact → settling → learning again, and the LEDs and panel follow
    let phases = log.phaseNames
    let noContact = try #require(phases.firstIndex(of: "no_contact"))
    #expect(phases[..<noContact].contains("learning_baseline"))
    let after = Array(phases[noContact...])
    let settling = try #require(after.firstIndex(of: "settling"))
    #expect(after[settling...].contains("learning_baseline"))
    #expect(log.ledStates.contains(.noContact))
    #expect(log.statuses.contains { $0.panelStatus.contains(.noContact) })
    // and windows at least half without contact are not scored, and no category is shown meanwhile
    let offWindows = log.windows.filter { $0.summary.endSeconds >= 120 && $0.summary.endSeconds <= 180 }
    #expect(offWindows.count == 7 && offWindows.allSatisfy { $0.summary.category == nil })
    #expect(log.statuses.filter { $0.phase == .noContact }.allSatisfy { $0.category == nil })
  }

  @Test("an unplugged sensor is an error retried with backoff, and measuring resumes after a gap")
  func sensorLostAndBack() async throws {
    // Given the simulated board whose sensor is unplugged at 90 s of data and answers again at the second
    // attempt to reopen it
    var run = try SimulatedRun("unplug")
    defer { run.directory.remove() }
    let sensor = EmulatorHandle(replugOnAttempt: 2) { index, handle in
      if index >= 90 * 100 { handle.unplugOnce() }
    }
    let board = run.board
    run.environment.makeSource = { options throws(SensorError) in
      try sensor.makeSource(board: board, options: options)
    }
    run.environment.sensorRetryInitialSeconds = 1
    run.environment.sensorRetryMaximumSeconds = 8

    // When it runs for 200 s of data
    let (summary, log) = try await run.run(duration: 200)

    // Then the state showed the error with its retry delays (1 s, then 2 s), the LEDs the error rhythm, then it
    // settled again
    let retries = log.statuses.flatMap(\.faults).compactMap { fault -> Double? in
      if case .sensor(_, let retry) = fault { retry } else { nil }
    }
    #expect(retries.first == 1)
    #expect(retries.contains(2))
    #expect(!retries.contains(4))
    #expect(log.ledStates.contains(.error))
    let names = log.stateNames
    let error = try #require(names.firstIndex(of: "error"))
    #expect(names[error...].contains("settling"))
    // and the outage (1 s + 2 s) is a gap of about 300 samples, never stitched across; windows continue after it
    #expect(summary.gaps >= 1)
    #expect(summary.lostSamples >= 300 && summary.lostSamples < 400)
    #expect(log.windows.last!.summary.endSeconds == 200)
    #expect(log.notices.contains { $0.hasPrefix("sensor back") })
  }
}

/// The emulated MAX30102 behind the simulated board, built the way the factory builds it, with the test holding
/// the emulator (finger) and a plug between the bus and the driver. `script` runs after each block with the
/// sensor's sample count, so what the test does happens at an exact point of the data, whatever the speed.
final class EmulatorHandle: Sendable {
  private struct State {
    var emulator: MAX30102Emulator?
    var fingerPresent = true
    var unplugged = false
    var failedReopens = 0
  }

  private let state = Mutex(State())
  private let replugOnAttempt: Int
  private let script: @Sendable (Int, EmulatorHandle) -> Void
  let plug = Plug()

  init(replugOnAttempt: Int = 1, script: @escaping @Sendable (Int, EmulatorHandle) -> Void) {
    self.replugOnAttempt = replugOnAttempt
    self.script = script
  }

  func makeSource(board: Board, options: PulseSourceOptions) throws(SensorError) -> any PulseSource {
    let clock = options.clock ?? VirtualClock()
    if plug.isUnplugged {
      let attempt = state.withLock { state in
        state.failedReopens += 1
        return state.failedReopens
      }
      guard attempt >= replugOnAttempt else { throw .device(DeviceErrorView.nack(path: "emulated bus (sim)")) }
      plug.set(unplugged: false)
    }
    let (bus, emulator) = try PulseSourceFactory.emulatedBus(for: board, clock: clock)
    state.withLock { $0.emulator = emulator }
    let configuration = try MAX30102Configuration(board: board.sensor)
    let inner = MAX30102Source(
      bus: PluggedBus(inner: bus, plug: plug), configuration: configuration, clock: clock, kind: "emulated")
    return ScriptedSource(inner: inner) { [self] index in script(index, self) }
  }

  func setFinger(present: Bool) {
    let emulator = state.withLock { state -> MAX30102Emulator? in
      guard state.fingerPresent != present else { return nil }
      state.fingerPresent = present
      return state.emulator
    }
    emulator?.setFinger(present ? EmulatedFinger() : .absent)
  }

  func unplugOnce() {
    let first = state.withLock { state -> Bool in
      defer { state.unplugged = true }
      return !state.unplugged
    }
    if first { plug.set(unplugged: true) }
  }
}

/// A source that tells the test how far the data has come after each block.
actor ScriptedSource: PulseSource {
  nonisolated let info: PulseSourceInfo
  private let inner: any PulseSource
  private let onBlock: @Sendable (Int) -> Void

  init(inner: any PulseSource, onBlock: @escaping @Sendable (Int) -> Void) {
    info = inner.info
    self.inner = inner
    self.onBlock = onBlock
  }

  func start() async throws(SensorError) { try await inner.start() }

  func nextBlock() async throws(SensorError) -> PulseBlock? {
    let block = try await inner.nextBlock()
    if let block { onBlock(block.endSampleIndex) }
    return block
  }

  func stop() async { await inner.stop() }
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
