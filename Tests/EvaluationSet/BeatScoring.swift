/// Beat-detection scoring as the peers' score.py does it (Charlton et al. 2022 style): F1 with a ±150 ms
/// tolerance, one-to-one closest-first matching, and for an ECG reference a constant pulse-arrival lag
/// estimated and removed first. Positions are in samples (fractional allowed). The evaluation set's scoring
/// (`EvalScore`) matches with the same `match`.
public enum BeatScoring {
  public struct Score: Sendable {
    public var truePositives: Int
    public var falseNegatives: Int
    public var falsePositives: Int
    public var lagSamples: Double
    public var f1: Double { Double(2 * truePositives) / Double(2 * truePositives + falsePositives + falseNegatives) }
  }

  /// score.py `score_record`: lag (ECG references only), reference beats shifted out of the recording
  /// dropped, detections outside the reference span ± tolerance ignored.
  public static func score(
    reference: [Double], detected: [Double], rateHz: Double, ecgReference: Bool, sampleCount: Int,
    toleranceSeconds: Double = 0.15
  ) -> Score {
    let tolerance = toleranceSeconds * rateHz
    let detections = detected.sorted()
    let lag =
      ecgReference
      ? estimateLag(reference: reference, detected: detections, rateHz: rateHz, tolerance: tolerance) : 0
    let shifted = reference.map { $0 + lag }.filter { $0 >= 0 && $0 <= Double(sampleCount - 1) }
    guard let first = shifted.first, let last = shifted.last else {
      return Score(truePositives: 0, falseNegatives: 0, falsePositives: detections.count, lagSamples: lag)
    }
    let scored = detections.filter { $0 >= first - tolerance && $0 <= last + tolerance }
    let pairs = match(reference: shifted, detected: scored, tolerance: tolerance)
    return Score(
      truePositives: pairs.count, falseNegatives: shifted.count - pairs.count,
      falsePositives: scored.count - pairs.count,
      lagSamples: lag)
  }

  /// Greedy closest-first one-to-one matching within `tolerance`: (reference index, detection index).
  public static func match(reference: [Double], detected: [Double], tolerance: Double) -> [(Int, Int)] {
    var candidates: [(distance: Double, r: Int, d: Int)] = []
    var j0 = 0
    for (i, r) in reference.enumerated() {
      while j0 < detected.count && detected[j0] < r - tolerance { j0 += 1 }
      var j = j0
      while j < detected.count && detected[j] <= r + tolerance {
        candidates.append((abs(detected[j] - r), i, j))
        j += 1
      }
    }
    candidates.sort { ($0.distance, $0.r, $0.d) < ($1.distance, $1.r, $1.d) }
    var usedReference = Set<Int>()
    var usedDetection = Set<Int>()
    var pairs: [(Int, Int)] = []
    for c in candidates where !usedReference.contains(c.r) && !usedDetection.contains(c.d) {
      usedReference.insert(c.r)
      usedDetection.insert(c.d)
      pairs.append((c.r, c.d))
    }
    return pairs.sorted { $0.0 < $1.0 }
  }

  /// score.py `estimate_lag`: differences detection − reference within [−0.3 s, +1 s], histogrammed in 10 ms
  /// bins smoothed by a 7-bin boxcar; the lag is the median of each reference beat's closest difference that
  /// lies within the tolerance of the histogram's mode.
  public static func estimateLag(reference: [Double], detected: [Double], rateHz: Double, tolerance: Double) -> Double {
    guard !reference.isEmpty, !detected.isEmpty else { return 0 }
    let low = -0.3, high = 1.0
    var differences: [Double] = []
    for r in reference {
      for d in detected where d >= r + low * rateHz && d <= r + high * rateHz { differences.append((d - r) / rateHz) }
    }
    guard !differences.isEmpty else { return 0 }
    // numpy.arange(lo, hi + 0.01, 0.01) edges and numpy.histogram (last bin closed).
    var edges: [Double] = []
    var e = low
    while e < high + 0.01 - 1e-12 {
      edges.append(e)
      e = low + Double(edges.count) * 0.01
    }
    let binCount = edges.count - 1
    var histogram = [Double](repeating: 0, count: binCount)
    for x in differences {
      guard x >= edges[0], x <= edges[binCount] else { continue }
      var k = Int((x - edges[0]) / 0.01)
      k = min(binCount - 1, max(0, k))
      if x < edges[k] { k -= 1 } else if k + 1 <= binCount - 1 && x >= edges[k + 1] { k += 1 }
      histogram[max(0, k)] += 1
    }
    // numpy.convolve(h, ones(7), mode="same").
    var smoothed = [Double](repeating: 0, count: binCount)
    for i in 0..<binCount {
      for k in -3...3 where i + k >= 0 && i + k < binCount { smoothed[i] += histogram[i + k] }
    }
    var best = 0
    for i in 1..<binCount where smoothed[i] > smoothed[best] { best = i }
    let mode = 0.5 * (edges[best] + edges[best + 1])
    var closest: [Double] = []
    for r in reference {
      var bestDifference = Double.infinity
      for d in detected {
        let x = (d - r) / rateHz
        if abs(x - mode) < abs(bestDifference - mode) { bestDifference = x }
      }
      if abs(bestDifference - mode) <= tolerance / rateHz { closest.append(bestDifference) }
    }
    guard !closest.isEmpty else { return mode * rateHz }
    let sorted = closest.sorted()
    let n = sorted.count
    let median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    return median * rateHz
  }
}
