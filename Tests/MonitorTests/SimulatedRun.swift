import Config
import FoundationEssentials
import Indicators
import Monitor
import Sensors
import Store
import StressModel
import Synchronization
import SyncWire
import TestSupport

/// A run of the real pipeline on the simulated board (emulated MAX30102 replaying the bundled recording, rendered
/// LEDs and panel), in process, with its files in a temporary directory and every event recorded.
struct SimulatedRun {
  let directory: TemporaryDirectory
  var board: Board
  var configuration: MonitorConfiguration
  var environment = MonitorEnvironment()

  init(_ label: String) throws {
    directory = try TemporaryDirectory("monitor-\(label)")
    board = try BoardLoader.load(path: SharedData.repositoryRoot + "/boards/sim.toml")
    board.epaper.output = directory.file("panel.png")
    configuration = MonitorConfiguration.defaults(mode: .desk)
    configuration.device.id = "test-desk"
    configuration.store.database = directory.file("monitor.db")
  }

  /// Runs to the end (duration, end of data or a stop) and returns the summary with every event in order.
  /// `react` sees each event as it is delivered (tests use it to lift a finger or unplug the sensor).
  func run(
    speed: RunSpeed = .max, duration: Double?, react: @escaping @Sendable (MonitorEvent, Monitor) -> Void = { _, _ in }
  ) async throws -> (summary: MonitorSummary, events: EventLog) {
    let monitor = Monitor(
      configuration: configuration, board: board, speed: speed, durationSeconds: duration, environment: environment)
    let log = EventLog()
    let summary = try await monitor.run { event in
      log.append(event)
      react(event, monitor)
    }
    return (summary, log)
  }

  func storedMeasurements() throws -> [StoredMeasurement] {
    let store = try MeasurementStore(path: configuration.store.database, options: .reading)
    defer { store.close() }
    return try store.measurements()
  }
}

/// Events as delivered, in order.
final class EventLog: Sendable {
  private let events = Mutex<[MonitorEvent]>([])

  func append(_ event: MonitorEvent) { events.withLock { $0.append(event) } }

  var all: [MonitorEvent] { events.withLock { $0 } }

  var statuses: [MonitorStatus] {
    all.compactMap { if case .state(let status, _) = $0 { status } else { nil } }
  }

  /// State names ("settling", "learning_baseline", "error", …) with consecutive repeats removed.
  var stateNames: [String] {
    statuses.map(\.name).reduce(into: [String]()) { names, name in if names.last != name { names.append(name) } }
  }

  var phaseNames: [String] {
    statuses.map(\.phase.name).reduce(into: [String]()) { names, name in if names.last != name { names.append(name) } }
  }

  var windows: [(record: MeasurementRecord, summary: HRVWindowSummaryView)] {
    all.compactMap {
      if case .window(let record, let summary, _) = $0 {
        (record, HRVWindowSummaryView(endSeconds: summary.endSeconds, category: summary.stress?.category.rawValue))
      } else {
        nil
      }
    }
  }

  var ledStates: [IndicatorState] {
    all.compactMap { if case .ledState(let state, _) = $0 { state } else { nil } }
  }

  var ledFrames: [LEDFrame] {
    all.compactMap { if case .leds(let frame) = $0 { frame } else { nil } }
  }

  var panelDecisions: [RefreshDecision] {
    all.compactMap { if case .panel(let decision, _, _) = $0 { decision } else { nil } }
  }

  var baselines: [PersonalBaseline] {
    all.compactMap { if case .baseline(let baseline, _) = $0 { baseline } else { nil } }
  }

  var notices: [String] {
    all.compactMap { if case .notice(let text, _) = $0 { text } else { nil } }
  }
}

struct HRVWindowSummaryView: Sendable {
  var endSeconds: Double
  var category: String?
}
