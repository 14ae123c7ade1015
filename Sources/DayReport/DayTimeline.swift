import StressModel
import SyncWire

/// A day's measurement windows cut into what the picture and the summary show: spans of one category, spans of
/// one non-good quality, gaps with no windows, and the runs of good windows a line may join.
///
/// Each window stands for the time since the previous result, its *slot* `(windowEnd − width, windowEnd]`:
/// one step (the median spacing of results, 10 s by default) or, when a result came late but within
/// `gapSteps` steps, the whole time since the previous one. Longer silences are gaps: nothing is drawn across
/// them and no line joins the windows on either side.
public struct DayTimeline: Sendable {
  // MARK: - Types

  /// What a span of the day was.
  public enum Kind: Sendable, Hashable {
    case category(StressCategory)
    /// Windows that could not be scored, by why (no contact, poor signal, …).
    case uncategorised(WindowQuality)
    /// No windows at all for longer than `gapSteps` steps.
    case gap
  }

  /// A stretch of the day of one kind, in epoch seconds.
  public struct Span: Sendable, Equatable {
    public var kind: Kind
    public var start: Double
    public var end: Double
    /// Windows in the span (0 for a gap).
    public var windows: Int
  }

  // MARK: - Properties

  /// A silence longer than this many steps is a gap ("no windows for longer than ~2 window steps").
  public static let gapSteps = 2.0
  /// Step assumed when the day holds a single window: the daemon's default result interval (DESIGN.md).
  public static let defaultStepSeconds = 10.0

  public let day: LocalDay
  /// The windows that end inside the day, by `windowEnd`.
  public let records: [MeasurementRecord]
  /// Seconds between results: the median positive spacing of `windowEnd`.
  public let stepSeconds: Double
  /// Each record's slot width in seconds, parallel to `records`.
  public let slotSeconds: [Double]
  /// Consecutive windows of the same kind merged, with gaps between them, in time order.
  public let spans: [Span]
  /// Runs of consecutive good windows with no gap or non-good window between: each is one line, never joined.
  public let goodRuns: [[MeasurementRecord]]

  // MARK: - Initialization

  /// Keeps the records whose `windowEnd` falls in (day.start, day.end] and orders them.
  public init(records: [MeasurementRecord], day: LocalDay) {
    self.day = day
    let sorted = records.filter { $0.windowEnd > day.start && $0.windowEnd <= day.end }
      .sorted { $0.windowEnd < $1.windowEnd }
    self.records = sorted
    var spacings: [Double] = []
    for index in sorted.indices.dropFirst() {
      let spacing = sorted[index].windowEnd - sorted[index - 1].windowEnd
      if spacing > 0 { spacings.append(spacing) }
    }
    let step = Statistics.median(spacings) ?? Self.defaultStepSeconds
    stepSeconds = step

    var slots: [Double] = []
    var spans: [Span] = []
    var runs: [[MeasurementRecord]] = []
    var currentRun: [MeasurementRecord] = []
    for (index, record) in sorted.enumerated() {
      let spacing = index == 0 ? Double.infinity : record.windowEnd - sorted[index - 1].windowEnd
      let isGap = spacing > Self.gapSteps * step
      let width = isGap ? step : spacing
      slots.append(width)
      // Not a gap: the slot starts exactly where the previous one ended, so the spans tile the measured time.
      let slotStart = isGap ? max(day.start, record.windowEnd - width) : sorted[index - 1].windowEnd
      if isGap && index > 0 {
        spans.append(Span(kind: .gap, start: sorted[index - 1].windowEnd, end: slotStart, windows: 0))
      }
      let kind = Self.kind(of: record)
      if !isGap, let last = spans.last, last.kind == kind {
        spans[spans.count - 1].end = record.windowEnd
        spans[spans.count - 1].windows += 1
      } else {
        spans.append(Span(kind: kind, start: slotStart, end: record.windowEnd, windows: 1))
      }
      if isGap || !record.quality.isCategorised || record.stressLevel == nil {
        if !currentRun.isEmpty { runs.append(currentRun) }
        currentRun = []
      }
      if record.quality.isCategorised && record.stressLevel != nil { currentRun.append(record) }
    }
    if !currentRun.isEmpty { runs.append(currentRun) }
    slotSeconds = slots
    self.spans = spans
    goodRuns = runs
  }

  // MARK: - Public

  /// The kind a single window counts as: the category of its level when scored, else its quality. A window
  /// marked good but without a level (a writer's bug) counts as uncategorised rather than inventing a number.
  public static func kind(of record: MeasurementRecord) -> Kind {
    guard record.quality.isCategorised, let level = record.stressLevel else {
      return .uncategorised(record.quality.isCategorised ? .insufficientBeats : record.quality)
    }
    return .category(StressCategory(level: level))
  }

  /// The interior gaps (between the first and the last window).
  public var gaps: [Span] { spans.filter { $0.kind == .gap } }
}
