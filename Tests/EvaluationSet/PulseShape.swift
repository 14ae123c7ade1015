import Platform

/// One averaged pulse shape from a real recording: a cardiac cycle from foot to foot on a phase axis [0, 1],
/// 0 at both feet and 1 at the systolic peak. Rendering maps time onto phase with a piecewise-linear warp whose
/// knot is the peak, so the knot sits where the slope is zero and the rendered wave stays smooth.
public struct PulseShape: Sendable {
  // MARK: - Properties

  /// The recording it was averaged from.
  public let source: String
  public let license: String
  /// Phase of the systolic peak (the warp's knot), and the source's median foot-to-foot time, seconds.
  public let peakPhase: Double
  public let cycleSeconds: Double
  /// Cycles averaged.
  public let cyclesAveraged: Int
  /// `table.count` points over [0, 1): value at phase i / count; periodic.
  let table: [Double]

  static let tableSize = 2048
  /// Points on the phase axis when averaging cycles.
  static let averagingPoints = 400

  // MARK: - Initialization

  /// Averages the regular cycles of `source` (those correlating ≥ 0.95 with their median shape), then keeps the
  /// Fourier harmonics up to ~16 Hz at the source's rate (a smooth, periodic shape without sensor noise).
  init?(source recording: SourceRecording) {
    let cycles = PulseCycles(recording)
    let regular = cycles.cycles.filter(\.regular)
    guard regular.count >= 8 else { return nil }
    let anchor = cycles.medianUpstrokeShare
    let shapes = regular.map { cycles.normalised($0, points: Self.averagingPoints, anchor: anchor) }
    let median = (0...Self.averagingPoints).map { j in SignalMath.median(shapes.map { $0[j] }) }
    var kept = shapes.filter { SignalMath.correlation($0, median) >= 0.95 }
    if kept.count < 8 {
      kept = shapes.sorted { SignalMath.correlation($0, median) > SignalMath.correlation($1, median) }
        .prefix(max(8, shapes.count / 2)).map { $0 }
    }
    let average = (0...Self.averagingPoints).map { j in SignalMath.mean(kept.map { $0[j] }) }
    let cycleSeconds = cycles.medianCycleSeconds
    let harmonics = min(40, max(12, Int((16 * cycleSeconds).rounded())))
    var table = Self.fourierSmoothed(Array(average.dropLast()), harmonics: harmonics, size: Self.tableSize)
    // Exactly 0 at the feet, so beats of different amplitudes join without a step.
    let foot = table[0]
    table = table.map { $0 - foot }
    // The peak of the smoothed shape (parabolic vertex) becomes phase `peakPhase`, value 1.
    var best = 1
    for i in 1..<(Self.tableSize * 6 / 10) where table[i] > table[best] { best = i }
    let (vertex, height) = Self.vertex(table[best - 1], table[best], table[best + 1])
    table = table.map { $0 / height }
    self.source = recording.name
    self.license = recording.license
    self.peakPhase = (Double(best) + vertex) / Double(Self.tableSize)
    self.cycleSeconds = cycleSeconds
    self.cyclesAveraged = kept.count
    self.table = table
  }

  // MARK: - Public

  /// The shape at `phase` (wrapped into [0, 1)), Catmull-Rom interpolation between table points.
  public func value(atPhase phase: Double) -> Double {
    let n = table.count
    let x = (phase - phase.rounded(.down)) * Double(n)
    let i = Int(x)
    let f = x - Double(i)
    let p0 = table[(i - 1 + n) % n]
    let p1 = table[i % n]
    let p2 = table[(i + 1) % n]
    let p3 = table[(i + 2) % n]
    return p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))
  }

  // MARK: - Private

  /// The periodic series `x` (one cycle, `x.count` points) kept to its first `harmonics` Fourier harmonics,
  /// evaluated on `size` points.
  private static func fourierSmoothed(_ x: [Double], harmonics: Int, size: Int) -> [Double] {
    let n = Double(x.count)
    var a: [Double] = []
    var b: [Double] = []
    let mean = SignalMath.mean(x)
    for k in 1...harmonics {
      var ak = 0.0
      var bk = 0.0
      for (i, v) in x.enumerated() {
        let w = 2 * Double.pi * Double(k) * Double(i) / n
        ak += v * cos(w)
        bk += v * sin(w)
      }
      a.append(2 * ak / n)
      b.append(2 * bk / n)
    }
    return (0..<size).map { i in
      var v = mean
      for k in 1...harmonics {
        let w = 2 * Double.pi * Double(k) * Double(i) / Double(size)
        v += a[k - 1] * cos(w) + b[k - 1] * sin(w)
      }
      return v
    }
  }

  /// Vertex of the parabola through (−1, a), (0, b), (1, c): offset and height.
  static func vertex(_ a: Double, _ b: Double, _ c: Double) -> (Double, Double) {
    let denominator = a - 2 * b + c
    guard denominator < 0 else { return (0, b) }
    let offset = 0.5 * (a - c) / denominator
    return (offset, b - 0.25 * (a - c) * offset)
  }
}
