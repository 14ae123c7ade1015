import Platform
import StressModel

/// Double-precision signal helpers for building the evaluation set. They run once per process on the real
/// material (never on the device's per-sample path), so clarity wins over speed.
enum SignalMath {
  /// A second-order section, direct form II transposed: y = b0 x + s1; s1 = b1 x − a1 y + s2; s2 = b2 x − a2 y.
  struct Biquad {
    var b0, b1, b2, a1, a2: Double
  }

  /// Butterworth (Q = 1/√2) low-pass by the bilinear transform with pre-warping.
  static func lowPass(cutoffHz: Double, rateHz: Double) -> Biquad {
    let k = tan(Double.pi * min(cutoffHz, 0.45 * rateHz) / rateHz)
    let q = 1 / 2.0.squareRoot()
    let norm = 1 / (1 + k / q + k * k)
    let b0 = k * k * norm
    return Biquad(b0: b0, b1: 2 * b0, b2: b0, a1: 2 * (k * k - 1) * norm, a2: (1 - k / q + k * k) * norm)
  }

  /// Butterworth (Q = 1/√2) high-pass by the bilinear transform with pre-warping.
  static func highPass(cutoffHz: Double, rateHz: Double) -> Biquad {
    let k = tan(Double.pi * cutoffHz / rateHz)
    let q = 1 / 2.0.squareRoot()
    let norm = 1 / (1 + k / q + k * k)
    return Biquad(b0: norm, b1: -2 * norm, b2: norm, a1: 2 * (k * k - 1) * norm, a2: (1 - k / q + k * k) * norm)
  }

  /// Runs `x` through the sections forwards, then backwards (zero phase, squared magnitude). The first value is
  /// taken as the level before the signal began, so a large DC does not ring at the start of either pass.
  static func zeroPhase(_ x: [Double], _ sections: [Biquad]) -> [Double] {
    var y = x
    for section in sections { y = filter(y, section) }
    y.reverse()
    for section in sections { y = filter(y, section) }
    y.reverse()
    return y
  }

  /// One section over `x`, its state primed as if `x[0]` had always been there.
  static func filter(_ x: [Double], _ q: Biquad) -> [Double] {
    guard let first = x.first else { return [] }
    // Steady state for a constant input c: y = c·G with G = (b0+b1+b2)/(1+a1+a2).
    let gain = (q.b0 + q.b1 + q.b2) / (1 + q.a1 + q.a2)
    let yss = first * gain
    var s2 = q.b2 * first - q.a2 * yss
    var s1 = q.b1 * first - q.a1 * yss + s2
    var out = [Double](repeating: 0, count: x.count)
    for i in 0..<x.count {
      let xi = x[i]
      let yi = q.b0 * xi + s1
      s1 = q.b1 * xi - q.a1 * yi + s2
      s2 = q.b2 * xi - q.a2 * yi
      out[i] = yi
    }
    return out
  }

  /// Boxcar mean of each run of `factor` samples (the last partial run is dropped).
  static func decimate(_ x: [Double], by factor: Int) -> [Double] {
    guard factor > 1 else { return x }
    var out: [Double] = []
    out.reserveCapacity(x.count / factor)
    var i = 0
    while i + factor <= x.count {
      var sum = 0.0
      for j in i..<(i + factor) { sum += x[j] }
      out.append(sum / Double(factor))
      i += factor
    }
    return out
  }

  /// `x` at a fractional index, linear between neighbours, clamped to the ends.
  static func interpolate(_ x: [Double], at position: Double) -> Double {
    guard x.count > 1 else { return x.first ?? 0 }
    if position <= 0 { return x[0] }
    let last = x.count - 1
    if position >= Double(last) { return x[last] }
    let i = Int(position)
    let f = position - Double(i)
    return x[i] + f * (x[i + 1] - x[i])
  }

  /// StressModel's statistics (one definition), NaN instead of nil for an empty input.
  static func median(_ x: [Double]) -> Double { Statistics.median(x) ?? .nan }
  static func mean(_ x: [Double]) -> Double { Statistics.mean(x) ?? .nan }
  static func standardDeviation(_ x: [Double]) -> Double { Statistics.sampleStandardDeviation(x) ?? .nan }

  /// Pearson correlation of two equally long series.
  static func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let ma = mean(a)
    let mb = mean(b)
    var sab = 0.0
    var saa = 0.0
    var sbb = 0.0
    for i in 0..<min(a.count, b.count) {
      sab += (a[i] - ma) * (b[i] - mb)
      saa += (a[i] - ma) * (a[i] - ma)
      sbb += (b[i] - mb) * (b[i] - mb)
    }
    return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
  }

  /// Smooth 0→1 step (cubic Hermite) for `x` in [0, 1].
  static func smoothstep(_ x: Double) -> Double {
    let c = min(1, max(0, x))
    return c * c * (3 - 2 * c)
  }
}
