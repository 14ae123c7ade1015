/// Small descriptive statistics used by HRV, baseline and IBI cleaning. Pure functions on arrays of Double.
public enum Statistics {
  /// Arithmetic mean; nil for an empty input.
  public static func mean(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    return values.reduce(0, +) / Double(values.count)
  }

  /// Sample standard deviation (n − 1 in the denominator, as pyhrv/numpy `ddof=1`); nil below two values.
  public static func sampleStandardDeviation(_ values: [Double]) -> Double? {
    guard values.count >= 2, let mean = mean(values) else { return nil }
    var sum = 0.0
    for value in values {
      let d = value - mean
      sum += d * d
    }
    return (sum / Double(values.count - 1)).squareRoot()
  }

  /// Percentile with linear interpolation between closest ranks (numpy's default `linear` method).
  /// `p` is in 0...100; nil for an empty input.
  public static func percentile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    return percentile(sorted: values.sorted(), p)
  }

  /// As `percentile(_:_:)` on an already sorted array.
  public static func percentile(sorted: [Double], _ p: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = min(100, max(0, p)) / 100 * Double(sorted.count - 1)
    let lower = Int(rank.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    let fraction = rank - Double(lower)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
  }

  /// Median (50th percentile, linear interpolation), found by selection rather than by sorting a copy.
  public static func median(_ values: [Double]) -> Double? {
    var copy = values
    return medianSelectingInPlace(&copy)
  }

  /// The same median of an array the caller gives up the order of (it is reordered; nothing is copied).
  static func medianSelectingInPlace(_ values: inout [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let count = values.count
    let (lower, upper) = values.withUnsafeMutableBufferPointer { middleValues($0, count: count) }
    return lower + (upper - lower) * 0.5
  }

  /// Values inside [Q1 − k·IQR, Q3 + k·IQR] (Tukey's fences; k = 1.5 by default), order kept.
  public static func removingOutliers(_ values: [Double], iqrMultiplier k: Double = 1.5) -> [Double] {
    let sorted = values.sorted()
    guard let q1 = percentile(sorted: sorted, 25), let q3 = percentile(sorted: sorted, 75) else { return [] }
    let iqr = q3 - q1
    let low = q1 - k * iqr
    let high = q3 + k * iqr
    return values.filter { $0 >= low && $0 <= high }
  }
}
