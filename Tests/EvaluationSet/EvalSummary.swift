/// Figures over several scored records (a condition, or the whole set), as scripts/accuracy_score.py `summarise`
/// pools them: beats and matched offsets pooled over records, window errors over every shown window.
public struct EvalSummary: Sendable {
  public let records: Int
  public let truePositives: Int
  public let falsePositives: Int
  public let falseNegatives: Int
  /// Lowest F1 of a single record.
  public let minimumF1: Double?
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

  public init(_ scores: [EvalScore]) {
    records = scores.count
    truePositives = scores.reduce(0) { $0 + $1.truePositives }
    falsePositives = scores.reduce(0) { $0 + $1.falsePositives }
    falseNegatives = scores.reduce(0) { $0 + $1.falseNegatives }
    minimumF1 = scores.map(\.f1).min()
    let offsets = scores.flatMap(\.timingOffsetsMs)
    timingBiasMs = EvalStatistics.mean(offsets)
    timingSDMs = EvalStatistics.populationSD(offsets)
    let windows = scores.flatMap(\.windows)
    let sdnn = windows.compactMap(\.sdnnError).map(abs)
    let rmssd = windows.compactMap(\.rmssdError).map(abs)
    sdnnMedianError = EvalStatistics.percentile(sdnn, 50)
    sdnnP90Error = EvalStatistics.percentile(sdnn, 90)
    rmssdMedianError = EvalStatistics.percentile(rmssd, 50)
    rmssdP90Error = EvalStatistics.percentile(rmssd, 90)
    let judged = windows.filter { $0.sdnnError != nil }
    sdnnWithin10 = EvalStatistics.share(judged) { abs($0.sdnnError!) <= 0.1 * $0.truth!.sdnnMs }
    cleanShown = EvalStatistics.share(windows.filter { $0.kind == .clean }, \.shown)
    noisyUncategorised = EvalStatistics.share(windows.filter { $0.kind == .noisy }) { !$0.shown }
    liftedUncategorised = EvalStatistics.share(windows.filter { $0.kind == .lifted }) { !$0.shown }
    recordSDNNMedianError = EvalStatistics.percentile(
      scores.compactMap { s in s.sdnnMs.flatMap { v in s.truth.map { abs(v - $0.sdnnMs) } } }, 50)
    recordRMSSDMedianError = EvalStatistics.percentile(
      scores.compactMap { s in s.rmssdMs.flatMap { v in s.truth.map { abs(v - $0.rmssdMs) } } }, 50)
  }

  public var f1: Double {
    let d = 2 * truePositives + falsePositives + falseNegatives
    return d == 0 ? 1 : Double(2 * truePositives) / Double(d)
  }
}

/// The few statistics the scoring needs, defined as numpy's (percentile: linear interpolation; SD: population).
public enum EvalStatistics {
  public static func mean(_ x: [Double]) -> Double? { x.isEmpty ? nil : x.reduce(0, +) / Double(x.count) }

  public static func populationSD(_ x: [Double]) -> Double? {
    guard let m = mean(x) else { return nil }
    return (x.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(x.count)).squareRoot()
  }

  /// numpy.percentile(x, q) with its default linear interpolation.
  public static func percentile(_ x: [Double], _ q: Double) -> Double? {
    guard !x.isEmpty else { return nil }
    let s = x.sorted()
    let position = Double(s.count - 1) * q / 100
    let i = Int(position)
    let f = position - Double(i)
    return i + 1 < s.count ? s[i] + f * (s[i + 1] - s[i]) : s[i]
  }

  public static func share<T>(_ items: [T], _ predicate: (T) -> Bool) -> Double? {
    items.isEmpty ? nil : Double(items.filter(predicate).count) / Double(items.count)
  }
}
