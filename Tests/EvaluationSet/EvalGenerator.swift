import Platform
import StressModel

/// Makes one record: parameters and beat schedule from the spec's seed, the pulse train (`PulseRenderer`), then
/// per sample the light level, real noise, motion and lifted finger, quantised to 18 bits.
enum EvalGenerator {
  /// Full scale of the MAX30102's 18-bit ADC.
  static let fullScale = 262_143.0
  /// Real noise is played in stretches of 8–25 s from random places, joined by equal-power cross-fades.
  static let noiseFadeSeconds = 0.25

  /// `noiseFree`: no noise, drift, wander or motion (the pulse train on a flat DC, lifts kept), for checking that
  /// the truth sits on the rendered peaks.
  static func record(_ spec: EvalRecordSpec, material: EvalMaterial, noiseFree: Bool = false) -> EvalRecord {
    var random = SplitMix64(seed: spec.generatorSeed)
    let p = EvalParameters.draw(spec, material: material, random: &random)
    let duration = spec.durationSeconds
    let schedule = BeatSchedule.draw(p, duration: duration, material: material, random: &random)
    let shape = material.shapes.first { $0.source == p.shape } ?? material.shapes[0]
    let renderer = PulseRenderer(p, schedule: schedule, shape: shape, random: &random)
    let noise = NoisePlayer(
      material.noise.first { $0.source == p.noiseSource } ?? material.noise[0], duration: duration, &random)
    let lifts = p.lifts ?? []
    let bursts = noiseFree ? [] : p.motionBursts ?? []

    // Truth.
    var beats: [TruthBeat] = []
    for k in renderer.cycles.indices {
      let t = renderer.systolicPeak(k)
      guard t >= 0, t < duration else { continue }
      let lifted = lifts.contains { t >= $0.startSeconds && t < $0.endSeconds }
      beats.append(TruthBeat(seconds: t, number: k, premature: schedule.premature[k], visible: !lifted))
    }

    // Samples.
    let count = Int((duration * spec.rateHz).rounded())
    let ac = p.acPercent / 100 * p.dcCounts
    let noiseSD = ac / p.acToNoise
    let whiteSD = noiseSD * p.whiteNoiseShare.squareRoot()
    let realSD = noiseSD * (1 - p.whiteNoiseShare).squareRoot()
    var samples = [Int32](repeating: 0, count: count)
    var levels: [Double] = noiseFree ? [Double](repeating: 0, count: count) : []
    var k = 0
    let cycles = renderer.cycles
    for n in 0..<count {
      let t = Double(n) / spec.rateHz
      while k + 1 < cycles.count && cycles[k + 1].foot <= t { k += 1 }
      let pulse = PulseRenderer.pulse(cycles[k], shape: shape, at: t - cycles[k].foot)
      var level = (noiseFree ? p.dcCounts : renderer.baseline(t)) - ac * renderer.modulation(t) * pulse
      for burst in bursts where t >= burst.startSeconds && t < burst.startSeconds + burst.durationSeconds {
        let track = material.motion[burst.snippet]
        let local = t - burst.startSeconds
        let taper = SignalMath.smoothstep(local / 0.3) * SignalMath.smoothstep((burst.durationSeconds - local) / 0.3)
        let motion = SignalMath.interpolate(track.values, at: local / burst.stretch * track.rateHz)
        level += burst.gain * ac * taper * motion
      }
      for lift in lifts where t >= lift.startSeconds {
        level = Self.lifted(level, lift: lift, at: t, dc: p.dcCounts)
      }
      if !noiseFree { level += realSD * noise.value(at: t) + whiteSD * random.gaussian() }
      if noiseFree { levels[n] = level }
      samples[n] = Int32(min(fullScale, max(0, level.rounded())))
    }

    var excluded = [TimeSpan(0, 1), TimeSpan(duration - 0.5, duration)]
    excluded += lifts.map { TimeSpan($0.startSeconds - 0.25, $0.endSeconds + 2) }
    return EvalRecord(
      spec: spec, parameters: p, samples: samples, noiseFreeLevels: noiseFree ? levels : nil, beats: beats,
      motionSpans: bursts.map { TimeSpan($0.startSeconds, $0.startSeconds + $0.durationSeconds) },
      liftSpans: lifts.map { TimeSpan($0.startSeconds, $0.endSeconds) }, excludedSpans: excluded)
  }

  /// The light with the finger lifting and coming back: a smooth fall to the dark level, dark, a smooth rise,
  /// then the level settling from `settleShare` off.
  static func lifted(_ level: Double, lift: EvalParameters.Lift, at t: Double, dc: Double) -> Double {
    let dark = lift.darkPercent / 100 * dc
    let riseStart = lift.startSeconds + lift.downSeconds + lift.darkSeconds
    let contact: Double
    if t < lift.startSeconds + lift.downSeconds {
      contact = 1 - SignalMath.smoothstep((t - lift.startSeconds) / lift.downSeconds)
    } else if t < riseStart {
      contact = 0
    } else {
      contact = SignalMath.smoothstep((t - riseStart) / lift.upSeconds)
    }
    let settle = t >= riseStart ? 1 + lift.settleShare * exp(-(t - riseStart) / lift.settleSeconds) : 1
    return dark + contact * (level * settle - dark)
  }
}

/// Plays a real noise track (unit SD) as a continuous stream: stretches from random places, cross-faded.
struct NoisePlayer {
  let track: EvalMaterial.Track
  /// (stream start, track offset), seconds.
  let stretches: [(start: Double, offset: Double)]

  init(_ track: EvalMaterial.Track, duration: Double, _ random: inout SplitMix64) {
    self.track = track
    let length = Double(track.values.count) / track.rateHz
    var stretches: [(Double, Double)] = []
    var start = 0.0
    let fade = EvalGenerator.noiseFadeSeconds
    while start <= duration {
      let span = random.uniform(8, 25)
      stretches.append((start, fade + random.uniform(0, max(0, length - span - 3 * fade))))
      start += span
    }
    self.stretches = stretches
  }

  /// The noise at stream time `t`, unit SD.
  func value(at t: Double) -> Double {
    let fade = EvalGenerator.noiseFadeSeconds
    // The last stretch starting at or before t (binary search).
    var lo = 0
    var hi = stretches.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if stretches[mid].start <= t { lo = mid } else { hi = mid - 1 }
    }
    let i = lo
    let here = sample(stretches[i].offset + t - stretches[i].start)
    guard i + 1 < stretches.count, t > stretches[i + 1].start - fade else { return here }
    let w = (t - (stretches[i + 1].start - fade)) / fade
    let next = sample(stretches[i + 1].offset + t - stretches[i + 1].start)
    return (1 - w).squareRoot() * here + w.squareRoot() * next
  }

  private func sample(_ seconds: Double) -> Double {
    SignalMath.interpolate(track.values, at: seconds * track.rateHz) / track.standardDeviation
  }
}
