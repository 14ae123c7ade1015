import StressModel

/// Figures over several scored records (a condition, or the whole set), as scripts/accuracy_score.py `summarise`
/// pools them: beats and matched offsets pooled over records, window errors over every shown window.
public struct EvalSummary: Sendable {
  public let records: Int
  public let truePositives: Int
  public let falsePositives: Int
  public let falseNegatives: Int
  /// Lowest F1 of a single record.
  public let minimumF1: Double?
  /// Detection − truth over every matched pair: mean, and SD around each record's own mean (pooled).
  public let timingBiasMs: Double?
  public let timingSDMs: Double?
  /// |analyzer − truth| over shown windows with a truth, ms: median and 90th percentile.
  public let sdnnMedianError: Double?
  public let sdnnP90Error: Double?
  public let rmssdMedianError: Double?
  public let rmssdP90Error: Double?
  /// Share of shown windows whose SDNN is within 10 % of the truth.
  public let sdnnWithin10: Double?
  /// Share of clean windows shown; of noisy windows not shown; of lifted windows not shown.
  public let cleanShown: Double?
  public let noisyUncategorised: Double?
  public let liftedUncategorised: Double?
  /// Whole-record HRV, |analyzer − truth| median over records, ms.
  public let recordSDNNMedianError: Double?
  public let recordRMSSDMedianError: Double?
  /// Whole records, median over records: |SDNN of the detector's intervals − the truth's| over the detected
  /// true pairs (the detector's timing), and |the analyzer's cleaned SDNN − the detector's| (the cleaning).
  public let pairSDNNMedianError: Double?
  public let cleaningSDNNMedianError: Double?

  public init(_ scores: [EvalScore]) {
    records = scores.count
    truePositives = scores.reduce(0) { $0 + $1.truePositives }
    falsePositives = scores.reduce(0) { $0 + $1.falsePositives }
    falseNegatives = scores.reduce(0) { $0 + $1.falseNegatives }
    minimumF1 = scores.map(\.f1).min()
    let offsets = scores.flatMap(\.timingOffsetsMs)
    timingBiasMs = Statistics.mean(offsets)
    // Precision: each record's offsets around its own mean, pooled (the bias moves with the pulse shape).
    let spread = scores.reduce(0.0) { sum, score in
      guard let m = Statistics.mean(score.timingOffsetsMs) else { return sum }
      return sum + score.timingOffsetsMs.reduce(0) { $0 + ($1 - m) * ($1 - m) }
    }
    timingSDMs = offsets.isEmpty ? nil : (spread / Double(offsets.count)).squareRoot()
    let windows = scores.flatMap(\.windows)
    let sdnn = windows.compactMap(\.sdnnError).map(abs)
    let rmssd = windows.compactMap(\.rmssdError).map(abs)
    sdnnMedianError = Statistics.percentile(sdnn, 50)
    sdnnP90Error = Statistics.percentile(sdnn, 90)
    rmssdMedianError = Statistics.percentile(rmssd, 50)
    rmssdP90Error = Statistics.percentile(rmssd, 90)
    let judged = windows.filter { $0.sdnnError != nil }
    sdnnWithin10 = EvalStatistics.share(judged) { abs($0.sdnnError!) <= 0.1 * $0.truth!.sdnnMs }
    cleanShown = EvalStatistics.share(windows.filter { $0.kind == .clean }, \.shown)
    noisyUncategorised = EvalStatistics.share(windows.filter { $0.kind == .noisy }) { !$0.shown }
    liftedUncategorised = EvalStatistics.share(windows.filter { $0.kind == .lifted }) { !$0.shown }
    recordSDNNMedianError = Statistics.percentile(
      scores.compactMap { s in s.sdnnMs.flatMap { v in s.truth.map { abs(v - $0.sdnnMs) } } }, 50)
    recordRMSSDMedianError = Statistics.percentile(
      scores.compactMap { s in s.rmssdMs.flatMap { v in s.truth.map { abs(v - $0.rmssdMs) } } }, 50)
    pairSDNNMedianError = Statistics.percentile(
      scores.compactMap { s in s.pairDetected.flatMap { d in s.pairTruth.map { abs(d.sdnnMs - $0.sdnnMs) } } }, 50)
    cleaningSDNNMedianError = Statistics.percentile(
      scores.compactMap { s in s.sdnnMs.flatMap { v in s.pairDetected.map { abs(v - $0.sdnnMs) } } }, 50)
  }

  public var f1: Double {
    let d = 2 * truePositives + falsePositives + falseNegatives
    return d == 0 ? 1 : Double(2 * truePositives) / Double(d)
  }
}

/// The two statistics the scoring needs beyond StressModel's `Statistics` (whose mean and numpy-style linear
/// percentile it uses).
public enum EvalStatistics {
  /// Population SD (numpy's default, ddof = 0); nil when empty.
  public static func populationSD(_ x: [Double]) -> Double? {
    guard let m = Statistics.mean(x) else { return nil }
    return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count)).squareRoot()
  }

  /// Share of `items` for which `predicate` holds; nil when empty.
  public static func share<T>(_ items: [T], _ predicate: (T) -> Bool) -> Double? {
    items.isEmpty ? nil : Double(items.filter(predicate).count) / Double(items.count)
  }
}
