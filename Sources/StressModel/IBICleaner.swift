/// One inter-beat interval and the cleaner's verdict on it.
public struct InterBeatInterval: Sendable, Equatable, Codable {
  /// Why an interval is or is not used for HRV.
  public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Plausible and close to its neighbours: used.
    case clean
    /// Outside the plausible range (300-2000 ms): a missed beat over a pause, or two detections of one beat.
    case implausible
    /// Deviates from the local median by more than the tolerance: an ectopic beat, its compensatory pause,
    /// a missed or an extra detection.
    case irregular
    /// Too few plausible neighbours in its run to judge it (a short stretch between gaps).
    case unverified
  }

  /// The beats that bound it, seconds on the stream timeline.
  public var startSeconds: Double
  public var endSeconds: Double
  public var verdict: Verdict
  /// Increases at every gap or detector restart: intervals never span one, and successive differences are
  /// only taken between adjacent clean intervals of the same segment.
  public var segment: Int

  public init(startSeconds: Double, endSeconds: Double, verdict: Verdict, segment: Int) {
    self.startSeconds = startSeconds
    self.endSeconds = endSeconds
    self.verdict = verdict
    self.segment = segment
  }

  public var milliseconds: Double { (endSeconds - startSeconds) * 1000 }
  public var isClean: Bool { verdict == .clean }
}

/// Streaming IBI cleaning: beats in, judged intervals out, in order.
///
/// Each interval is compared with the median of the plausible intervals around it (up to `neighbours` on each
/// side, in the same segment), as the usual RR clean-up does (score.py's: ±5 intervals, 20 %). The default
/// tolerance is 25 %: real NN series with strong sinus arrhythmia (pyhrv's examples) have 3-7 % of their
/// intervals 20-25 % off the local median, while missed beats (+100 %), extra detections (−50 %) and typical
/// ectopic pairs (−30 % then +30 %) are well beyond it. Judging
/// an interval waits for its `neighbours` successors, so verdicts come about that many beats late; a gap
/// (`breakSegment`) or `finish` judges the waiting ones with what is there. Nothing is stitched across a gap.
public struct IBICleaner: Sendable {
  public struct Configuration: Sendable, Equatable {
    /// Physiologically plausible intervals, ms (200 bpm to 30 bpm).
    public var plausibleMilliseconds: ClosedRange<Double>
    /// Largest accepted deviation from the local median, as a share of it.
    public var maximumDeviation: Double
    /// Intervals on each side that make up the local median.
    public var neighbours: Int
    /// Fewest plausible intervals (itself included) in the neighbourhood to judge an interval at all.
    public var minimumNeighbourhood: Int

    public init(
      plausibleMilliseconds: ClosedRange<Double> = 300...2000, maximumDeviation: Double = 0.25, neighbours: Int = 5,
      minimumNeighbourhood: Int = 4
    ) {
      self.plausibleMilliseconds = plausibleMilliseconds
      self.maximumDeviation = maximumDeviation
      self.neighbours = neighbours
      self.minimumNeighbourhood = minimumNeighbourhood
    }
  }

  // MARK: - Properties

  public let configuration: Configuration
  /// The end of the earliest interval still waiting for its verdict; nil when none waits.
  public var earliestUndecidedEndSeconds: Double? { judged < recent.count ? recent[judged].end : nil }
  public private(set) var cleanCount = 0
  public private(set) var rejectedCount = 0

  private var segment = 0
  private var lastBeat: Double?
  /// The current segment's recent intervals: `judged` of them already emitted (kept as left neighbours).
  private var recent: [(start: Double, end: Double)] = []
  private var judged = 0

  // MARK: - Initialization

  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    recent.reserveCapacity(4 * configuration.neighbours + 4)
  }

  // MARK: - Public

  /// A beat at `seconds` (stream timeline, increasing). Emits the intervals that can now be judged.
  public mutating func addBeat(atSeconds seconds: Double, _ emit: (InterBeatInterval) -> Void) {
    defer { lastBeat = seconds }
    guard let previous = lastBeat, seconds > previous else {
      return
    }
    recent.append((previous, seconds))
    while recent.count - judged > configuration.neighbours { judgeNext(emit) }
    trim()
  }

  /// A gap or a detector restart: judges what waits, and the next beat starts a new segment.
  public mutating func breakSegment(_ emit: (InterBeatInterval) -> Void) {
    while judged < recent.count { judgeNext(emit) }
    recent.removeAll(keepingCapacity: true)
    judged = 0
    lastBeat = nil
    segment += 1
  }

  /// The end of the stream.
  public mutating func finish(_ emit: (InterBeatInterval) -> Void) {
    breakSegment(emit)
  }

  // MARK: - Private

  private func isPlausible(_ interval: (start: Double, end: Double)) -> Bool {
    configuration.plausibleMilliseconds.contains((interval.end - interval.start) * 1000)
  }

  private mutating func judgeNext(_ emit: (InterBeatInterval) -> Void) {
    let index = judged
    let interval = recent[index]
    let milliseconds = (interval.end - interval.start) * 1000
    let verdict: InterBeatInterval.Verdict
    if !isPlausible(interval) {
      verdict = .implausible
    } else {
      let low = max(0, index - configuration.neighbours)
      let high = min(recent.count - 1, index + configuration.neighbours)
      var around: [Double] = []
      around.reserveCapacity(high - low + 1)
      for i in low...high where isPlausible(recent[i]) { around.append((recent[i].end - recent[i].start) * 1000) }
      if around.count < configuration.minimumNeighbourhood {
        verdict = .unverified
      } else {
        let median = Statistics.median(around) ?? milliseconds
        verdict = abs(milliseconds - median) <= configuration.maximumDeviation * median ? .clean : .irregular
      }
    }
    if verdict == .clean { cleanCount += 1 } else { rejectedCount += 1 }
    judged += 1
    emit(InterBeatInterval(startSeconds: interval.start, endSeconds: interval.end, verdict: verdict, segment: segment))
  }

  /// Keeps only the left neighbours still needed.
  private mutating func trim() {
    let keep = configuration.neighbours
    if judged > 2 * keep {
      let drop = judged - keep
      recent.removeFirst(drop)
      judged -= drop
    }
  }
}

extension InterBeatInterval {
  /// Clean intervals (ms) grouped into runs of adjacent ones (same segment, each starting where the previous
  /// ended): the input `HRVMetrics(segmentsMs:)` wants, so successive differences never cross a gap or a
  /// rejected interval. `intervals` must be in time order.
  public static func cleanRuns<C: Collection>(_ intervals: C) -> [[Double]] where C.Element == InterBeatInterval {
    var runs: [[Double]] = []
    var current: [Double] = []
    var previous: InterBeatInterval?
    for interval in intervals {
      let adjacent = previous.map { $0.isClean && $0.segment == interval.segment && $0.endSeconds == interval.startSeconds }
        ?? false
      if !interval.isClean || !adjacent {
        if !current.isEmpty { runs.append(current) }
        current = []
      }
      if interval.isClean { current.append(interval.milliseconds) }
      previous = interval
    }
    if !current.isEmpty { runs.append(current) }
    return runs
  }
}
