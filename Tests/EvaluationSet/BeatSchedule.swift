import Platform
import StressModel

/// When each heartbeat's pulse starts (its foot), and which beats are premature. The systolic peaks, the truth,
/// follow from the rendered pulses (`PulseRenderer`).
struct BeatSchedule {
  /// Foot times, seconds, increasing; the first lies before 0 and the last after the record's end.
  var feet: [Double]
  var premature: [Bool]

  /// Sinus timing from a real RR series, rescaled to the mean rate with its relative variability kept
  /// (deviations × `variabilityScale`), then premature beats inserted; or AF-like intervals.
  static func draw(
    _ p: EvalParameters, duration: Double, material: EvalMaterial, random: inout SplitMix64
  ) -> BeatSchedule {
    let mean = 60 / p.heartRateBpm
    // A fifth more than the record needs: non-compensatory premature beats pull the later beats earlier.
    let count = Int((1.2 * duration + 10) / mean) + 10
    var intervals: [Double] = []
    if let spread = p.afSpread {
      for _ in 0..<count {
        let x = mean * exp(spread * random.gaussian() - spread * spread / 2)
        intervals.append(min(1.8 * mean, max(max(0.28, 0.5 * mean), x)))
      }
    } else {
      let series = material.rrSeries.first { $0.name == p.rrSource }?.intervalsMs ?? [1000]
      var raw: [Double] = []
      var index = p.rrStart ?? 0
      var step = 1
      // Played forwards, then backwards from the end (no jump where a short series wraps).
      for _ in 0..<count {
        raw.append(series[index])
        if index + step < 0 || index + step >= series.count { step = -step }
        index += step
      }
      let rawMean = SignalMath.mean(raw)
      intervals = raw.map { mean + p.variabilityScale * (mean * $0 / rawMean - mean) }
    }
    var feet: [Double] = [-mean * random.unit() - 1]
    for interval in intervals { feet.append(feet[feet.count - 1] + interval) }
    var premature = [Bool](repeating: false, count: feet.count)
    if let probability = p.prematureProbability, let earliness = p.prematureEarliness {
      var sinceLast = 0
      var k = 2
      while k < feet.count - 2 {
        sinceLast += 1
        if sinceLast >= 4 && random.unit() < probability {
          let early = random.uniform(earliness[0], earliness[1])
          let onTime = feet[k]
          feet[k] = feet[k - 1] + (1 - early) * (onTime - feet[k - 1])
          premature[k] = true
          if p.compensatoryPause != true {
            // The sinus node is reset: everything after comes as much earlier.
            let shift = onTime - feet[k]
            for j in (k + 1)..<feet.count { feet[j] -= shift }
          }
          sinceLast = 0
        }
        k += 1
      }
    }
    // Keep one foot past the end of the record (plus the two seconds the last cycles may need).
    let last = (feet.firstIndex { $0 > duration + 2 } ?? feet.count - 1) + 1
    return BeatSchedule(feet: Array(feet.prefix(last)), premature: Array(premature.prefix(last)))
  }
}
