import Indicators
import StressModel
import SyncWire

/// When an event happened: on the data's timeline (seconds since the run started, as the sensor counts them) and
/// on the process's monotonic clock (milliseconds; for latencies, whatever the run's speed).
public struct EventTime: Sendable, Equatable {
  public var dataSeconds: Double
  public var processMilliseconds: Double

  public init(dataSeconds: Double, processMilliseconds: Double = ProcessClock.milliseconds()) {
    self.dataSeconds = dataSeconds
    self.processMilliseconds = processMilliseconds
  }
}

/// What the run is: printed once at the start.
public struct MonitorStartInfo: Sendable, Equatable {
  public var mode: MonitorMode
  public var board: String
  public var boardPath: String
  public var simulated: Bool
  public var source: String
  public var sampleRateHz: Double?
  public var speed: RunSpeed
  public var deviceID: String
  public var database: String?
  public var panelImage: String?
  public var leds: String?
  public var panel: String?
  public var hub: String?
}

/// What happened, for the CLI to print (human lines or JSON) and for tests to assert. Delivered in order from the
/// monitor's own delivery task, so a slow consumer never holds up the sampling.
public enum MonitorEvent: Sendable {
  case started(MonitorStartInfo)
  /// The state changed (phase, fault, category or baseline progress).
  case state(MonitorStatus, at: EventTime)
  /// A finished window and the row stored for it.
  case window(MeasurementRecord, HRVWindowSummary, at: EventTime)
  /// A new baseline from the store (default → personal, or a recomputation).
  case baseline(PersonalBaseline, at: EventTime)
  /// The LEDs changed (simulated board): one entry per instant, each line lit or not, in wiring order.
  case leds(LEDFrame)
  /// The LEDs now repeat the rhythm shown since `sinceSeconds` every `periodMilliseconds`.
  case ledsRepeat(state: IndicatorState, periodMilliseconds: Int, sinceSeconds: Double)
  /// The LEDs switched to a new state at `at` (every board).
  case ledState(IndicatorState, at: EventTime)
  /// A panel refresh begins (the panel is busy until the matching `panel` event).
  case panelRefreshing(RefreshDecision, at: EventTime)
  case panel(RefreshDecision, image: String?, at: EventTime)
  /// A gap in the samples (FIFO overflow, bus error, reconnect).
  case gap(samples: Int, at: EventTime)
  /// A log-worthy problem or recovery, in a sentence.
  case notice(String, at: EventTime)
  /// Kiosk: what the hub answered.
  case kiosk(LatestResponse, at: EventTime)
  case stopped(MonitorSummary)
}

/// One instant of the LED timeline.
public struct LEDFrame: Sendable, Equatable {
  /// Data seconds.
  public var seconds: Double
  /// Line names (`red`, `green`, `blue`; the categories for a bar; `led`) with whether each is lit.
  public var lit: [(name: String, on: Bool)]
  /// The same, as `LEDTimeline` prints it for people.
  public var text: String

  public static func == (lhs: LEDFrame, rhs: LEDFrame) -> Bool {
    lhs.seconds == rhs.seconds && lhs.text == rhs.text && lhs.lit.map(\.name) == rhs.lit.map(\.name)
      && lhs.lit.map(\.on) == rhs.lit.map(\.on)
  }
}

/// The end of a run: what was measured and where it went.
public struct MonitorSummary: Sendable, Equatable {
  public var mode: MonitorMode
  public var stopReason: String
  public var dataSeconds: Double = 0
  public var wallSeconds: Double = 0
  public var samples: Int64 = 0
  public var lostSamples = 0
  public var gaps = 0
  public var beats = 0
  public var windows = 0
  /// Windows per category, and per reason for the uncategorised ones.
  public var categories: [StressCategory: Int] = [:]
  public var uncategorised: [WindowQuality: Int] = [:]
  public var baseline: PersonalBaseline?
  /// Windows of this run in the file at the end: committed, less any a disk-full clean-up deleted since.
  public var storedMeasurements = 0
  public var storedIBIs = 0
  /// Rows that could not be written by the end (the store failed throughout); they are not in the file.
  public var unwrittenMeasurements = 0
  /// Windows not yet on the hub that disk-full clean-ups deleted during this run (oldest first; see docs/store.md).
  public var droppedForSpace = 0
  /// Rows stamped after the clock's now (a bug of whatever made them; 0 on every path of the daemon).
  public var aheadOfClock = 0
  public var database: String?
  public var panelImage: String?
  public var panelFullRefreshes = 0
  public var panelPartialRefreshes = 0
  public var panelAsleep: Bool?
  public var ledsReleased: Bool?
  /// Display updates and events given up because a consumer was slower (never samples, never rows).
  public var droppedDisplayUpdates = 0
  public var droppedEvents = 0
  public var kioskPolls = 0
  /// CPU time spent inside emulated sensors (the simulated board's MAX30102 computes its samples when they are
  /// read, on the sampling thread): what a real sensor would not cost the daemon. nil without an emulator.
  public var emulatorCPUMilliseconds: Double?

  public init(mode: MonitorMode, stopReason: String) {
    self.mode = mode
    self.stopReason = stopReason
  }
}
