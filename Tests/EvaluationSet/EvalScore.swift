import StressModel

/// One record scored against its truth. The definitions are those of scripts/accuracy_score.py (the harness);
/// each step here names its counterpart there.
///
/// - Beats (`score_beats`): every visible beat against every detection, one-to-one, closest pairs first, within
///   ±150 ms (`BeatScoring.match`); then a pair counts when its beat lies outside `excludedSpans`, and a detection
///   left over is false when it lies outside them. Timing: detection − truth over the matched pairs,
///   mean (bias) and population SD, ms.
/// - True NN intervals (`truth_nn`): consecutive heartbeats both visible and neither premature; an interval
///   belongs to the window its end beat falls in; RMSSD only over adjacent NN intervals (`HRVMetrics`).
/// - Windows (`score_windows`): each analyzer window against the truth in the same [start, end); its kind is
///   `lifted` (≥ 50 % lifted), `noisy` (a noisy record), `artefact` (motion or lift touches it) or `clean`.
public struct EvalScore: Sendable {
  public enum WindowKind: String, Sendable, CaseIterable {
    case clean, artefact, lifted, noisy
  }

  public struct Window: Sendable {
    public var startSeconds: Double
    public var endSeconds: Double
    public var kind: WindowKind
    public var shown: Bool
    public var truth: HRVMetrics?
    public var sdnnMs: Double?
    public var rmssdMs: Double?

    /// Analyzer − truth, for a shown window with both figures.
    public var sdnnError: Double? {
      guard shown, let sdnnMs, let truth else { return nil }
      return sdnnMs - truth.sdnnMs
    }
    public var rmssdError: Double? {
      guard shown, let rmssdMs, let truth else { return nil }
      return rmssdMs - truth.rmssdMs
    }
  }

  public static let toleranceSeconds = 0.15

  // MARK: - Properties

  public let name: String
  public let condition: EvalCondition
  public let rateHz: Double
  public let truePositives: Int
  public let falsePositives: Int
  public let falseNegatives: Int
  /// Detection − truth of each matched pair, ms.
  public let timingOffsetsMs: [Double]
  public let windows: [Window]
  /// HRV of the true NN intervals over the whole record, and the analyzer's own.
  public let truth: HRVMetrics?
  /// Over the true NN intervals whose two beats were both detected: HRV by the truth's times and by the
  /// detections' (`pair_hrv`). The gap between them is the detector's timing; the analyzer's cleaned HRV
  /// against `pairDetected` is what its interval cleaning does.
  public let pairTruth: HRVMetrics?
  public let pairDetected: HRVMetrics?
  public let sdnnMs: Double?
  public let rmssdMs: Double?

  // MARK: - Initialization

  public init(record: EvalRecord, output: AnalyzerOutput) {
    name = record.name
    condition = record.spec.condition
    rateHz = record.rateHz
    let scored = { (t: Double) in !record.excludedSpans.contains { $0.contains(t) } }
    let truthTimes = record.visibleBeats.map(\.seconds)
    let detected = output.beatTimesSeconds.sorted()
    // Matched over every beat and detection first, the spans applied after (`score_beats`): a detection just inside
    // a span still pairs with the scored beat past its edge, and one of an excluded beat takes no scored beat's place.
    let all = BeatScoring.match(reference: truthTimes, detected: detected, tolerance: Self.toleranceSeconds)
    let pairs = all.filter { scored(truthTimes[$0.0]) }
    let used = Set(all.map(\.1))
    truePositives = pairs.count
    falsePositives = detected.indices.filter { !used.contains($0) && scored(detected[$0]) }.count
    falseNegatives = truthTimes.filter(scored).count - pairs.count
    timingOffsetsMs = pairs.map { (detected[$0.1] - truthTimes[$0.0]) * 1000 }
    var matched: [Int: Double] = [:]
    for (i, j) in pairs { matched[i] = detected[j] }

    let nn = Self.truthNN(record)
    truth = HRVMetrics(segmentsMs: Self.runs(nn))
    pairTruth = HRVMetrics(segmentsMs: Self.runs(Self.truthNN(record, matched: matched)))
    pairDetected = HRVMetrics(segmentsMs: Self.runs(Self.truthNN(record, matched: matched, detected: true)))
    sdnnMs = output.sdnnMs
    rmssdMs = output.rmssdMs
    windows = output.windows.map { w in
      let length = w.endSeconds - w.startSeconds
      let lifted = record.liftSpans.reduce(0) { $0 + $1.overlap(w.startSeconds, w.endSeconds) }
      let motion = record.motionSpans.reduce(0) { $0 + $1.overlap(w.startSeconds, w.endSeconds) }
      let kind: WindowKind =
        lifted >= 0.5 * length ? .lifted
        : record.spec.condition.isNoisy ? .noisy : lifted + motion > 0 ? .artefact : .clean
      let inside = nn.filter { $0.end >= w.startSeconds && $0.end < w.endSeconds }
      return Window(
        startSeconds: w.startSeconds, endSeconds: w.endSeconds, kind: kind, shown: w.shown,
        truth: HRVMetrics(segmentsMs: Self.runs(inside)), sdnnMs: w.sdnnMs, rmssdMs: w.rmssdMs)
    }
  }

  // MARK: - Figures

  /// F1 = 2 TP / (2 TP + FP + FN); 1 when there is nothing to find and nothing found.
  public var f1: Double {
    let d = 2 * truePositives + falsePositives + falseNegatives
    return d == 0 ? 1 : Double(2 * truePositives) / Double(d)
  }

  public var timingBiasMs: Double? { Statistics.mean(timingOffsetsMs) }
  public var timingSDMs: Double? { EvalStatistics.populationSD(timingOffsetsMs) }

  // MARK: - Truth

  /// A true NN interval: milliseconds, its end beat's time, and its end beat's number (for adjacency).
  public struct Interval: Sendable {
    public var ms: Double
    public var end: Double
    public var endNumber: Int
  }

  /// Intervals between consecutive heartbeats that are both visible and neither premature. With `matched`
  /// (visible beat index → the detection matched to it): only those whose two beats were detected, timed by
  /// the detections when `detected`.
  public static func truthNN(
    _ record: EvalRecord, matched: [Int: Double]? = nil, detected: Bool = false
  ) -> [Interval] {
    let beats = record.visibleBeats
    guard beats.count > 1 else { return [] }
    return (1..<beats.count).compactMap { i in
      let a = beats[i - 1]
      let b = beats[i]
      guard b.number == a.number + 1, !a.premature, !b.premature else { return nil }
      var ms = (b.seconds - a.seconds) * 1000
      if let matched {
        guard let da = matched[i - 1], let db = matched[i] else { return nil }
        if detected { ms = (db - da) * 1000 }
      }
      return Interval(ms: ms, end: b.seconds, endNumber: b.number)
    }
  }

  /// Runs of adjacent intervals (each starts where the previous ended), for RMSSD.
  static func runs(_ intervals: [Interval]) -> [[Double]] {
    var runs: [[Double]] = []
    var previous: Int?
    for interval in intervals {
      if let previous, interval.endNumber == previous + 1 {
        runs[runs.count - 1].append(interval.ms)
      } else {
        runs.append([interval.ms])
      }
      previous = interval.endNumber
    }
    return runs
  }
}
