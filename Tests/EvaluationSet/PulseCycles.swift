import Signals
import TestSupport

/// A real recording from the shared data set, pulses pointing up, as Doubles in file units.
struct SourceRecording {
  let name: String
  let rateHz: Double
  /// Pulses up (inverted recordings are negated).
  let values: [Double]
  /// Mean of the file values as stored (the light level of a raw-intensity channel).
  let meanLevel: Double
  let license: String
  /// Reference beat sample indices (ECG R-peaks) when the sidecar has them, in `values`' time base.
  let referenceBeats: [Int]

  static func load(_ name: String) throws -> SourceRecording {
    let reader = try RecordingReader(path: try SharedData.path(name + ".csv"))
    var values: [Double] = []
    var skipped = 0
    while let block = try reader.nextBlock() {
      if values.isEmpty { skipped = block.gapBefore }
      for sample in block.channels[0] { values.append(reader.fileValue(sample)) }
    }
    let sidecar = reader.sidecar
    let meanLevel = SignalMath.mean(values)
    if sidecar?.polarity == .inverted { values = values.map { -$0 } }
    return SourceRecording(
      name: name, rateHz: sidecar?.fs ?? 0, values: values, meanLevel: meanLevel, license: sidecar?.license ?? "",
      referenceBeats: (sidecar?.beats ?? []).map { $0 - skipped }.filter { $0 >= 0 })
  }
}

/// The cardiac cycles of a real recording, found without the detector under test: a zero-phase band-pass,
/// peaks at least 0.7 dominant periods apart (or the PPG peak after each ECG R-peak when the sidecar has them),
/// then the systolic peak and the preceding foot on a 10 Hz low-passed copy. Each cycle runs foot → peak →
/// next foot. Cycles whose length or amplitude is off the recording's median are flagged, not dropped, so a
/// residual can bridge them.
struct PulseCycles {
  struct Cycle {
    /// Positions in `smooth` samples (working rate).
    var foot: Double
    var peak: Double
    var nextFoot: Double
    /// Smoothed signal at the peak minus the straight line between the two feet.
    var amplitude: Double
    var regular: Bool
  }

  /// The working rate (the source decimated to 150–300 Hz).
  let rateHz: Double
  /// Decimation factor from the source rate.
  let decimation: Int
  /// 10 Hz zero-phase low-pass of the decimated source.
  let smooth: [Double]
  let cycles: [Cycle]

  init(_ source: SourceRecording) {
    let decimation = max(1, Int(source.rateHz / 150))
    let rateHz = source.rateHz / Double(decimation)
    self.decimation = decimation
    self.rateHz = rateHz
    let working = SignalMath.decimate(source.values, by: decimation)
    let smooth = SignalMath.zeroPhase(working, [SignalMath.lowPass(cutoffHz: 10, rateHz: rateHz)])
    self.smooth = smooth
    let band = SignalMath.zeroPhase(
      working, [SignalMath.highPass(cutoffHz: 0.5, rateHz: rateHz), SignalMath.lowPass(cutoffHz: 8, rateHz: rateHz)])
    let period = Self.dominantPeriod(band, rateHz: rateHz)
    let anchors: [Int]
    if source.referenceBeats.count > 10 {
      // The PPG peak follows each R-peak by the pre-ejection period, transit and upstroke (0.15–0.6 s).
      anchors = source.referenceBeats.compactMap { r in
        let lo = (Double(r) / Double(decimation) + 0.15 * rateHz).rounded()
        let hi = (Double(r) / Double(decimation) + 0.6 * rateHz).rounded()
        return Self.argmax(band, Int(lo), Int(hi))
      }
    } else {
      anchors = Self.peaks(band, minimumDistance: Int(0.7 * period * rateHz))
    }
    var found: [Cycle] = []
    var feet: [(foot: Double, peak: Int)] = []
    for anchor in anchors {
      let window = Int(0.15 * period * rateHz)
      guard let peak = Self.argmax(smooth, anchor - window, anchor + window),
        let foot = Self.foot(smooth, peak: peak, earliest: peak - Int(0.5 * period * rateHz))
      else { continue }
      feet.append((foot, peak))
    }
    for i in 0..<max(0, feet.count - 1) {
      let (foot, peak) = feet[i]
      let nextFoot = feet[i + 1].foot
      guard nextFoot > Double(peak), Double(peak) > foot else { continue }
      let start = SignalMath.interpolate(smooth, at: foot)
      let end = SignalMath.interpolate(smooth, at: nextFoot)
      let line = start + (end - start) * (Double(peak) - foot) / (nextFoot - foot)
      found.append(
        Cycle(foot: foot, peak: Double(peak), nextFoot: nextFoot, amplitude: smooth[peak] - line, regular: true))
    }
    let lengths = found.map { $0.nextFoot - $0.foot }
    let medianLength = SignalMath.median(lengths)
    let medianAmplitude = SignalMath.median(found.map(\.amplitude))
    for i in found.indices {
      let length = found[i].nextFoot - found[i].foot
      let upstroke = (found[i].peak - found[i].foot) / length
      found[i].regular =
        abs(length / medianLength - 1) <= 0.15 && found[i].amplitude >= 0.5 * medianAmplitude
        && found[i].amplitude <= 2 * medianAmplitude && upstroke >= 0.05 && upstroke <= 0.5
    }
    cycles = found
  }

  /// Median foot-to-foot time of the regular cycles, seconds.
  var medianCycleSeconds: Double { SignalMath.median(cycles.filter(\.regular).map { $0.nextFoot - $0.foot }) / rateHz }

  /// Median share of a regular cycle taken by the upstroke (foot to peak).
  var medianUpstrokeShare: Double {
    SignalMath.median(cycles.filter(\.regular).map { ($0.peak - $0.foot) / ($0.nextFoot - $0.foot) })
  }

  /// Position in `smooth` samples of phase `phase` of a cycle whose upstroke takes `anchor` of the phase axis:
  /// foot → peak on [0, anchor], peak → next foot on [anchor, 1] (piecewise linear time warp).
  static func position(_ cycle: Cycle, phase: Double, anchor: Double) -> Double {
    if phase <= anchor { return cycle.foot + phase / anchor * (cycle.peak - cycle.foot) }
    return cycle.peak + (phase - anchor) / (1 - anchor) * (cycle.nextFoot - cycle.peak)
  }

  /// The cycle on `points` + 1 phase points, the line between its feet removed, divided by its amplitude.
  func normalised(_ cycle: Cycle, points: Int, anchor: Double) -> [Double] {
    let start = SignalMath.interpolate(smooth, at: cycle.foot)
    let end = SignalMath.interpolate(smooth, at: cycle.nextFoot)
    return (0...points).map { j in
      let phase = Double(j) / Double(points)
      let at = Self.position(cycle, phase: phase, anchor: anchor)
      let line = start + (end - start) * (at - cycle.foot) / (cycle.nextFoot - cycle.foot)
      return (SignalMath.interpolate(smooth, at: at) - line) / cycle.amplitude
    }
  }

  // MARK: - Private

  /// The dominant beat period over the first minute: the autocorrelation of the band-passed signal, clipped at
  /// four robust SDs so that motion spikes do not rule it; the shortest lag (0.33–1.5 s) whose local maximum
  /// reaches 80 % of the largest (a multiple of the period can come out nearly as high).
  private static func dominantPeriod(_ x: [Double], rateHz: Double) -> Double {
    let n = min(x.count, Int(60 * rateHz))
    let scale = 4 * 1.4826 * SignalMath.median(x.prefix(n).map(abs))
    let clipped = x.prefix(n).map { min(scale, max(-scale, $0)) }
    let lo = Int(0.33 * rateHz)
    let hi = min(n / 2, Int(1.5 * rateHz))
    guard hi > lo + 2 else { return 0.8 }
    let r = (lo...hi).map { lag in
      var sum = 0.0
      for i in 0..<(n - lag) { sum += clipped[i] * clipped[i + lag] }
      return sum / Double(n - lag)
    }
    let largest = r.max() ?? 0
    for i in 1..<(r.count - 1) where r[i] >= r[i - 1] && r[i] >= r[i + 1] && r[i] >= 0.8 * largest {
      return Double(lo + i) / rateHz
    }
    return Double(lo + (r.firstIndex(of: largest) ?? 0)) / rateHz
  }

  /// Local maxima, tallest first, none within `minimumDistance` of a taller one; then those below 40 % of the
  /// median kept height are dropped.
  private static func peaks(_ x: [Double], minimumDistance: Int) -> [Int] {
    var candidates: [Int] = []
    for i in 1..<max(1, x.count - 1) where x[i] > x[i - 1] && x[i] >= x[i + 1] && x[i] > 0 { candidates.append(i) }
    candidates.sort { x[$0] > x[$1] }
    var taken = [Bool](repeating: false, count: x.count)
    var kept: [Int] = []
    for c in candidates {
      let lo = max(0, c - minimumDistance)
      let hi = min(x.count - 1, c + minimumDistance)
      if taken[lo...hi].contains(true) { continue }
      taken[c] = true
      kept.append(c)
    }
    let floor = 0.4 * SignalMath.median(kept.map { x[$0] })
    return kept.filter { x[$0] >= floor }.sorted()
  }

  /// The foot before `peak` by intersecting tangents (the usual PPG foot): back from the peak to the first
  /// local minimum (one that the signal climbs 5 % of the rise above again), then the tangent at the steepest
  /// upslope between them, extended down to that minimum's level.
  private static func foot(_ x: [Double], peak: Int, earliest: Int) -> Double? {
    let first = max(0, earliest)
    guard peak - first >= 3 else { return nil }
    var low = peak
    var i = peak - 1
    while i >= first {
      if x[i] < x[low] { low = i }
      if x[i] > x[low] + 0.05 * (x[peak] - x[low]) { break }
      i -= 1
    }
    guard peak - low >= 2 else { return nil }
    var steepest = low
    for j in low..<peak where x[j + 1] - x[j] > x[steepest + 1] - x[steepest] { steepest = j }
    let slope = x[steepest + 1] - x[steepest]
    guard slope > 0 else { return Double(low) }
    let middle = 0.5 * (x[steepest] + x[steepest + 1])
    return min(Double(steepest), max(Double(low), Double(steepest) + 0.5 - (middle - x[low]) / slope))
  }

  private static func argmax(_ x: [Double], _ lo: Int, _ hi: Int) -> Int? {
    let a = max(0, lo)
    let b = min(x.count - 1, hi)
    guard a < b else { return nil }
    var best = a
    for i in a...b where x[i] > x[best] { best = i }
    return best
  }
}
