import StressModel
import SyncWire

/// The numbers of a day: time measured, time and windows per category and per reason a window went unscored,
/// means of the scored windows, and the gaps. The picture's summary line and `stressmon report --json` both come
/// from here.
public struct DaySummary: Sendable, Equatable, Encodable {
  // MARK: - Types

  /// Time and windows of one category or one quality.
  public struct Share: Sendable, Equatable, Encodable {
    public var minutes: Double
    public var windows: Int
  }

  /// A stretch with no windows between two measurements.
  public struct Gap: Sendable, Equatable, Encodable {
    /// Epoch seconds.
    public var start: Double
    public var end: Double
    /// Local wall-clock `HH:MM`.
    public var from: String
    public var to: String
    public var minutes: Double
  }

  // MARK: - Properties

  /// `YYYY-MM-DD`, and the instants of its first and next local midnight (epoch seconds).
  public var day: String
  public var dayStart: Double
  public var dayEnd: Double
  public var windows: Int
  public var windowStepSeconds: Double
  /// Time covered by windows of any quality.
  public var measuredMinutes: Double
  /// Keyed by `StressCategory.rawValue`; every category is present.
  public var categories: [String: Share]
  /// Keyed by `WindowQuality.rawValue` for every quality but `good`; every one is present.
  public var uncategorised: [String: Share]
  /// Means over the scored (good) windows; nil when there is none.
  public var meanStressLevel: Double?
  public var meanHrvMs: Double?
  public var meanHeartRateBpm: Double?
  public var gaps: [Gap]
  /// Windows whose wall clock was not synchronised yet: their times may be off.
  public var unsynchronisedWindows: Int
  /// Local `HH:MM` of the first window's start and the last window's end; nil on an empty day.
  public var firstMeasurement: String?
  public var lastMeasurement: String?

  // MARK: - Initialization

  public init(_ timeline: DayTimeline) {
    day = timeline.day.description
    dayStart = timeline.day.start
    dayEnd = timeline.day.end
    windows = timeline.records.count
    windowStepSeconds = timeline.stepSeconds
    // Sum seconds and divide once, so that 18 windows of 10 s are 3 minutes, not 2.999…
    var seconds: [DayTimeline.Kind: (seconds: Double, windows: Int)] = [:]
    var measured = 0.0
    for (record, slot) in zip(timeline.records, timeline.slotSeconds) {
      measured += slot
      let kind = DayTimeline.kind(of: record)
      seconds[kind] = ((seconds[kind]?.seconds ?? 0) + slot, (seconds[kind]?.windows ?? 0) + 1)
    }
    func share(_ kind: DayTimeline.Kind) -> Share {
      Share(minutes: (seconds[kind]?.seconds ?? 0) / 60, windows: seconds[kind]?.windows ?? 0)
    }
    categories = Dictionary(uniqueKeysWithValues: StressCategory.allCases.map { ($0.rawValue, share(.category($0))) })
    uncategorised = Dictionary(uniqueKeysWithValues: WindowQuality.allCases.filter { !$0.isCategorised }.map {
      ($0.rawValue, share(.uncategorised($0)))
    })
    measuredMinutes = measured / 60
    let scored = timeline.goodRuns.flatMap { $0 }
    meanStressLevel = Statistics.mean(scored.compactMap(\.stressLevel))
    meanHrvMs = Statistics.mean(scored.compactMap(\.sdnnMs))
    meanHeartRateBpm = Statistics.mean(scored.compactMap(\.heartRateBpm))
    gaps = timeline.gaps.map {
      Gap(
        start: $0.start, end: $0.end, from: timeline.day.clockText($0.start),
        to: timeline.day.clockText($0.end), minutes: ($0.end - $0.start) / 60)
    }
    unsynchronisedWindows = timeline.records.filter { !$0.clockSynchronised }.count
    firstMeasurement = timeline.records.first.map {
      timeline.day.clockText(max($0.windowStart, timeline.day.start))
    }
    lastMeasurement = timeline.records.last.map { timeline.day.clockText($0.windowEnd) }
  }

  // MARK: - Public

  /// One line for a person: "Measured 1 h 50 min (08:29-09:30) · Relaxed 1 h 30 min · … · HRV 78 ms · HR 77 bpm".
  public var sentence: String { sentenceParts.joined(separator: " · ") }

  /// The sentence's parts, for layouts that wrap it.
  public var sentenceParts: [String] {
    guard windows > 0 else { return ["No measurements on \(day)."] }
    let span = "(\(firstMeasurement ?? "")-\(lastMeasurement ?? ""))"
    var parts = ["Measured \(Self.duration(minutes: measuredMinutes)) \(span)"]
    for category in StressCategory.allCases {
      if let share = categories[category.rawValue], share.windows > 0 {
        parts.append("\(category.displayName) \(Self.duration(minutes: share.minutes))")
      }
    }
    for quality in WindowQuality.allCases {
      if let share = uncategorised[quality.rawValue], share.windows > 0 {
        parts.append("\(quality.displayText.prefix(1).uppercased() + quality.displayText.dropFirst()) "
          + Self.duration(minutes: share.minutes))
      }
    }
    if let meanHrvMs { parts.append("Mean HRV \(meanHrvMs.formatted(decimals: 0)) ms") }
    if let meanHeartRateBpm { parts.append("Mean HR \(meanHeartRateBpm.formatted(decimals: 0)) bpm") }
    return parts
  }

  /// "2 h 05 min", "45 min", "<1 min".
  public static func duration(minutes: Double) -> String {
    let rounded = Int(minutes.rounded())
    if minutes > 0 && rounded == 0 { return "<1 min" }
    guard rounded >= 60 else { return "\(rounded) min" }
    let remainder = rounded % 60
    return "\(rounded / 60) h " + (remainder < 10 ? "0" : "") + "\(remainder) min"
  }

  // MARK: - Encoding

  enum CodingKeys: String, CodingKey {
    case day, windows, categories, uncategorised, gaps
    case dayStart = "day_start"
    case dayEnd = "day_end"
    case windowStepSeconds = "window_step_s"
    case measuredMinutes = "measured_minutes"
    case meanStressLevel = "mean_stress_level"
    case meanHrvMs = "mean_hrv_ms"
    case meanHeartRateBpm = "mean_hr_bpm"
    case unsynchronisedWindows = "unsynchronised_windows"
    case firstMeasurement = "first_measurement"
    case lastMeasurement = "last_measurement"
  }
}
