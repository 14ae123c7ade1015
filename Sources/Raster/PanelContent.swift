import Platform
import StressModel

/// Everything a panel layout shows. The daemon fills it from the latest `StressResult` and its own status
/// (sensor contact, baseline progress, unsynced rows); `stressmon render` fills it from flags.
public struct PanelContent: Sendable, Hashable {
  /// The category to draw (icon, fill pattern, name); nil before the first result.
  public var category: StressCategory?
  /// Stress level 0-100.
  public var level: Double?
  /// HRV (SDNN) in ms.
  public var hrvMs: Double?
  /// Heart rate in beats per minute.
  public var heartRateBpm: Double?
  /// Local time of the measurement.
  public var measuredAt: ClockTime?
  /// Status shown on the bottom line, most important first.
  public var status: [PanelStatus]

  public init(
    category: StressCategory?, level: Double? = nil, hrvMs: Double? = nil, heartRateBpm: Double? = nil,
    measuredAt: ClockTime? = nil, status: [PanelStatus] = []
  ) {
    self.category = category
    self.level = level
    self.hrvMs = hrvMs
    self.heartRateBpm = heartRateBpm
    self.measuredAt = measuredAt
    self.status = status
  }

  /// From a scored window: category from the level (the category table decides), HRV and HR as measured.
  public init(result: StressResult, measuredAt: ClockTime?, status: [PanelStatus] = []) {
    self.init(category: result.category, level: result.level, hrvMs: result.hrvMs, heartRateBpm: result.heartRateBpm,
              measuredAt: measuredAt, status: status)
  }
}

/// One item of the panel's status line.
public enum PanelStatus: Sendable, Hashable, CustomStringConvertible {
  /// No finger on the sensor (the figures shown are the last good ones).
  case noContact
  /// The personal baseline is still being learned: `windows` of `needed` collected (both optional).
  case learningBaseline(windows: Int?, needed: Int?)
  /// The hub is unreachable and this many measurements wait to be synced.
  case offline(unsynced: Int)
  /// The wall clock has not been synchronised yet (times may be wrong).
  case clockUnsynchronised
  /// The disk is full: this many measurements not yet uploaded were deleted to make room.
  case diskFull(dropped: Int)
  /// A fault, in a few words.
  case error(String)
  /// A state in a few words ("Starting", "Uncategorised: poor signal", "Old data, 14 min"): the daemon's phases
  /// that have no case of their own.
  case message(String)

  public var description: String {
    switch self {
    case .noContact: "No contact"
    case .learningBaseline(let windows?, let needed?): "Learning baseline \(windows)/\(needed)"
    case .learningBaseline: "Learning baseline"
    case .offline(let unsynced): "Offline, \(unsynced) unsynced"
    case .clockUnsynchronised: "Clock not set"
    case .diskFull(let dropped): "Disk full, \(dropped) lost"
    case .error(let text): "Error: \(text)"
    case .message(let text): text
    }
  }

  /// The same in as few characters as still say it, for a status line that is full.
  public var shortDescription: String {
    switch self {
    case .noContact: "No contact"
    case .learningBaseline(let windows?, let needed?): "Learning \(windows)/\(needed)"
    case .learningBaseline: "Learning"
    case .offline(let unsynced): "Offline \(unsynced)"
    case .clockUnsynchronised: "No clock"
    case .diskFull(let dropped): "Full, \(dropped) lost"
    case .error(let text): "! " + text
    case .message(let text): text
    }
  }
}

/// A local wall-clock time of day, as the panel shows it ("09:05").
public struct ClockTime: Sendable, Hashable, CustomStringConvertible {
  public var hour: Int
  public var minute: Int

  public init(hour: Int, minute: Int) {
    self.hour = hour
    self.minute = minute
  }

  /// The local time (TZ / /etc/localtime) of a Unix time, through localtime_r(3).
  public init(localTimeOfEpochSeconds seconds: Int64) {
    var time = time_t(seconds)
    var parts = tm()
    localtime_r(&time, &parts)
    self.init(hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
  }

  /// The local time now.
  public static func now() -> ClockTime {
    ClockTime(localTimeOfEpochSeconds: Int64(time(nil)))
  }

  /// Parses "HH:MM" (24-hour).
  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
          (0..<24).contains(hour), (0..<60).contains(minute)
    else { return nil }
    self.init(hour: hour, minute: minute)
  }

  public var description: String {
    (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }
}
