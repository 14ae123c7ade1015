import Indicators
import Raster
import StressModel

/// Where the measuring stands. Every output shows it: the LEDs (a rhythm per state), the panel's status line,
/// the logs and `--json` events.
public enum MonitorPhase: Sendable, Equatable, CustomStringConvertible {
  /// Opening the sensor, before the first samples.
  case starting
  /// Nothing on the sensor.
  case noContact
  /// Contact, waiting for the first full window (or the first after contact came back).
  case settling
  /// Categorised against the wearer's personal baseline.
  case measuring
  /// Categorised against the default baseline while the personal one is learned (its first 30 good windows).
  case learningBaseline
  /// The last window could not be scored (poor signal, too few beats, saturated): no made-up number.
  case uncategorised(WindowQuality)
  /// Kiosk: the newest measurement on the hub is older than `stale_after_s`.
  case stale(ageSeconds: Double)
  /// Kiosk: the hub has nothing for this device yet.
  case waitingForData

  /// The state's name in logs and JSON.
  public var name: String {
    switch self {
    case .starting: "starting"
    case .noContact: "no_contact"
    case .settling: "settling"
    case .measuring: "measuring"
    case .learningBaseline: "learning_baseline"
    case .uncategorised: "uncategorised"
    case .stale: "stale"
    case .waitingForData: "waiting_for_data"
    }
  }

  public var description: String {
    switch self {
    case .starting: "starting"
    case .noContact: "no contact"
    case .settling: "settling"
    case .measuring: "measuring"
    case .learningBaseline: "learning baseline"
    case .uncategorised(let quality): "uncategorised (\(quality.displayText))"
    case .stale(let age): "stale (\(Int(age)) s old)"
    case .waitingForData: "waiting for data"
    }
  }
}

/// Something wrong beside the measuring. A store or panel fault shows while measuring continues; a lost sensor
/// is retried with backoff.
public enum MonitorFault: Sendable, Equatable, CustomStringConvertible {
  case sensor(String, retryInSeconds: Double)
  case store(String)
  case panel(String)
  /// Kiosk: the hub does not answer.
  case hub(String)

  public var name: String {
    switch self {
    case .sensor: "sensor"
    case .store: "store"
    case .panel: "panel"
    case .hub: "hub"
    }
  }

  public var message: String {
    switch self {
    case .sensor(let text, _), .store(let text), .panel(let text), .hub(let text): text
    }
  }

  /// A few words for the panel's status line.
  public var shortText: String {
    switch self {
    case .sensor(_, let retry): "sensor lost, retry in \(Int(retry.rounded(.up))) s"
    case .store: "cannot save data"
    case .panel: "panel"
    case .hub: "hub not answering"
    }
  }

  public var description: String { "\(name): \(message)" }
}

/// The daemon's state as every output shows it: the phase, a fault if any, and the category being shown.
public struct MonitorStatus: Sendable, Equatable {
  public var phase: MonitorPhase
  /// Faults now present, in the order they appeared.
  public var faults: [MonitorFault]
  /// The latest scored result (cleared when a window cannot be scored or contact is lost: never a stale category).
  public var result: StressResult?
  /// Wall time (Unix seconds) of the result's window end.
  public var resultAt: Double?
  /// Good windows collected for the personal baseline, and how many it needs (while the default is in use).
  public var baselineProgress: (windows: Int, needed: Int)?
  /// Rows waiting for upload while the hub is unreachable (sync configured only).
  public var unsynced: Int?
  /// Windows not yet uploaded that this run deleted because the disk was full.
  public var droppedForSpace: Int?
  public var clockSynchronised: Bool

  public init(phase: MonitorPhase = .starting, clockSynchronised: Bool = true) {
    self.phase = phase
    faults = []
    self.clockSynchronised = clockSynchronised
  }

  public static func == (lhs: MonitorStatus, rhs: MonitorStatus) -> Bool {
    lhs.phase == rhs.phase && lhs.faults == rhs.faults && lhs.result == rhs.result && lhs.resultAt == rhs.resultAt
      && lhs.baselineProgress?.windows == rhs.baselineProgress?.windows
      && lhs.baselineProgress?.needed == rhs.baselineProgress?.needed && lhs.unsynced == rhs.unsynced
      && lhs.droppedForSpace == rhs.droppedForSpace
      && lhs.clockSynchronised == rhs.clockSynchronised
  }

  // MARK: - Views

  public var category: StressCategory? { result?.category }

  /// "error" while a fault is present, else the phase's name.
  public var name: String { faults.isEmpty ? phase.name : "error" }

  /// What the LEDs show. The category is the information the LEDs exist for, so a store or panel fault does not
  /// hide it (the panel and the logs say what is wrong); a lost sensor or an unreachable hub has no current
  /// category to show and blinks the error rhythm.
  public var indicatorState: IndicatorState {
    let blocking = faults.contains { if case .sensor = $0 { true } else if case .hub = $0 { true } else { false } }
    if blocking { return .error }
    switch phase {
    case .measuring, .learningBaseline:
      if let category { return .category(category) }
      return .measuring
    case .noContact, .stale, .waitingForData: return .noContact
    case .uncategorised(.noContact): return .noContact
    case .starting, .settling, .uncategorised:
      return faults.isEmpty ? .measuring : .error
    }
  }

  /// The panel's status line, most important first.
  public var panelStatus: [PanelStatus] {
    var status: [PanelStatus] = faults.map { .error($0.shortText) }
    if let droppedForSpace, droppedForSpace > 0 { status.append(.diskFull(dropped: droppedForSpace)) }
    switch phase {
    case .starting: status.append(.message("Starting"))
    case .noContact: status.append(.noContact)
    case .settling: status.append(.message("Measuring, first result soon"))
    case .measuring: break
    case .learningBaseline:
      status.append(.learningBaseline(windows: baselineProgress?.windows, needed: baselineProgress?.needed))
    case .uncategorised(let quality): status.append(.message("Uncategorised: \(quality.displayText)"))
    case .stale(let age): status.append(.message(Self.ageText(age)))
    case .waitingForData: status.append(.message("No data yet"))
    }
    if let unsynced, unsynced > 0 { status.append(.offline(unsynced: unsynced)) }
    if !clockSynchronised { status.append(.clockUnsynchronised) }
    return status
  }

  /// What the panel shows: the latest result's figures (when there is one) and the status line.
  public func panelContent(localTime: (Double) -> ClockTime) -> PanelContent {
    guard let result else { return PanelContent(category: nil, status: panelStatus) }
    return PanelContent(result: result, measuredAt: resultAt.map(localTime), status: panelStatus)
  }

  /// Which updates the wearable's panel shows: the category, or a state without one (no contact, error).
  public var panelKey: String {
    "\(category?.rawValue ?? "-")|\(faults.map(\.name).joined(separator: ","))|\(category == nil ? phase.name : "")"
      + (droppedForSpace ?? 0 > 0 ? "|full" : "")
  }

  static func ageText(_ seconds: Double) -> String {
    let age = Int(max(0, seconds))
    if age < 120 { return "Old data, \(age) s" }
    if age < 7_200 { return "Old data, \(age / 60) min" }
    return "Old data, \(age / 3_600) h"
  }
}
