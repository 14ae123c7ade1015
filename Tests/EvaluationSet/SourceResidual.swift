/// What is left of a real recording once its pulse is taken out: sensor noise (raw SpO2 channels) or motion
/// artefact (the BITalino motion recording). The pulse model is the recording's own averaged shape, fitted per
/// regular cycle (its feet, peak and amplitude); runs of irregular cycles (motion) are bridged by evenly spaced
/// cycles of median amplitude between the regular ones around them, so the motion stays in the residual while
/// the pulse under it mostly leaves.
struct SourceResidual {
  let source: String
  let license: String
  let rateHz: Double
  /// Residual at the source rate, high-passed at `highPassHz`.
  let values: [Double]
  /// Mean light level of the source (file units) and the median pulse amplitude (smoothed, file units).
  let meanLevel: Double
  let pulseAmplitude: Double

  init?(source recording: SourceRecording, shape: PulseShape, highPassHz: Double) {
    let cycles = PulseCycles(recording)
    let model = Self.bridged(cycles)
    guard model.count >= 8 else { return nil }
    let anchor = shape.peakPhase
    // The fitted pulse on the working grid, then at each source sample by interpolation.
    var pulse = [Double](repeating: 0, count: cycles.smooth.count)
    for cycle in model {
      let first = Int(cycle.foot.rounded(.up))
      let last = min(pulse.count - 1, Int(cycle.nextFoot.rounded(.down)))
      guard first + 3 <= last else { continue }
      let unit = (first...last).map { i in
        let t = Double(i)
        let phase =
          t <= cycle.peak
          ? anchor * (t - cycle.foot) / (cycle.peak - cycle.foot)
          : anchor + (1 - anchor) * (t - cycle.peak) / (cycle.nextFoot - cycle.peak)
        return shape.value(atPhase: min(max(phase, 0), 0.999_999))
      }
      // Regular cycles: amplitude by least squares with a straight baseline; bridged ones keep the median.
      let amplitude =
        cycle.regular
        ? Self.fittedAmplitude(unit, Array(cycles.smooth[first...last])) ?? cycle.amplitude : cycle.amplitude
      for (j, u) in unit.enumerated() { pulse[first + j] = amplitude * u }
    }
    let d = Double(cycles.decimation)
    let start = Int(((model.first?.foot ?? 0) * d).rounded(.up))
    let end = min(recording.values.count, Int(((model.last?.nextFoot ?? 0) * d).rounded(.down)))
    guard end - start > Int(10 * recording.rateHz) else { return nil }
    var residual: [Double] = []
    residual.reserveCapacity(end - start)
    for n in start..<end {
      // Working sample w is the mean of source samples w·d … w·d + d − 1 (centre (d − 1) / 2).
      let w = (Double(n) - (d - 1) / 2) / d
      residual.append(recording.values[n] - SignalMath.interpolate(pulse, at: w))
    }
    source = recording.name
    license = recording.license
    rateHz = recording.rateHz
    values = SignalMath.zeroPhase(residual, [SignalMath.highPass(cutoffHz: highPassHz, rateHz: recording.rateHz)])
    meanLevel = recording.meanLevel
    pulseAmplitude = SignalMath.median(cycles.cycles.filter(\.regular).map(\.amplitude))
  }

  /// Spans (source samples) where the residual's 0.5 s RMS is over three times its median: the motion bursts.
  /// Spans closer than a second are merged; each is padded by half a second.
  func bursts() -> [Range<Int>] {
    let block = max(1, Int(0.5 * rateHz))
    var rms: [Double] = []
    var i = 0
    while i + block <= values.count {
      var sum = 0.0
      for j in i..<(i + block) { sum += values[j] * values[j] }
      rms.append((sum / Double(block)).squareRoot())
      i += block
    }
    let threshold = 3 * SignalMath.median(rms)
    var spans: [Range<Int>] = []
    for (k, value) in rms.enumerated() where value > threshold {
      let lo = max(0, k * block - block)
      let hi = min(values.count, (k + 1) * block + block)
      if let last = spans.last, lo <= last.upperBound + 2 * block {
        spans[spans.count - 1] = last.lowerBound..<hi
      } else {
        spans.append(lo..<hi)
      }
    }
    return spans
  }

  /// The longest stretch outside `bursts()` (a noise track should not carry the recording's own artefacts).
  func quietestStretch() -> Range<Int> {
    var best = 0..<0
    var start = 0
    for burst in bursts() + [values.count..<values.count] {
      if burst.lowerBound - start > best.count { best = start..<burst.lowerBound }
      start = max(start, burst.upperBound)
    }
    return best
  }

  // MARK: - Private

  /// a in y ≈ a·u + b + c·i (least squares over the cycle's samples).
  private static func fittedAmplitude(_ u: [Double], _ y: [Double]) -> Double? {
    let i = u.indices.map(Double.init)
    // Remove the straight line from both (project out 1 and i), then a = <u', y'> / <u', u'>.
    func detrended(_ v: [Double]) -> [Double] {
      let mi = SignalMath.mean(i)
      let mv = SignalMath.mean(v)
      var sxy = 0.0
      var sxx = 0.0
      for k in v.indices {
        sxy += (i[k] - mi) * (v[k] - mv)
        sxx += (i[k] - mi) * (i[k] - mi)
      }
      let slope = sxx > 0 ? sxy / sxx : 0
      return v.indices.map { v[$0] - mv - slope * (i[$0] - mi) }
    }
    let du = detrended(u)
    let dy = detrended(y)
    var uy = 0.0
    var uu = 0.0
    for k in du.indices {
      uy += du[k] * dy[k]
      uu += du[k] * du[k]
    }
    return uu > 0 ? uy / uu : nil
  }

  /// Regular cycles as found; irregular runs between two regular cycles replaced by evenly spaced cycles.
  private static func bridged(_ cycles: PulseCycles) -> [PulseCycles.Cycle] {
    let all = cycles.cycles
    let regular = all.filter(\.regular)
    guard regular.count >= 2 else { return regular }
    let length = SignalMath.median(regular.map { $0.nextFoot - $0.foot })
    let upstroke = SignalMath.median(regular.map { ($0.peak - $0.foot) / ($0.nextFoot - $0.foot) })
    let amplitude = SignalMath.median(regular.map(\.amplitude))
    var out: [PulseCycles.Cycle] = [regular[0]]
    for cycle in regular.dropFirst() {
      let previous = out[out.count - 1]
      let gap = cycle.foot - previous.nextFoot
      if gap > 0.25 * length {
        let count = max(1, Int((gap / length).rounded()))
        let step = gap / Double(count)
        for k in 0..<count {
          let foot = previous.nextFoot + Double(k) * step
          out.append(
            PulseCycles.Cycle(
              foot: foot, peak: foot + upstroke * step, nextFoot: foot + step, amplitude: amplitude, regular: false))
        }
      } else if gap > 0 {
        out[out.count - 1].nextFoot = cycle.foot
      }
      out.append(cycle)
    }
    return out
  }
}
