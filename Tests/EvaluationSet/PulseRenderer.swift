import Platform
import StressModel

/// Renders a beat schedule as raw MAX30102 IR intensity and finds the truth: the systolic peak of each rendered
/// pulse, to a microsecond, on the noise-free pulse (amplitude modulation included, baseline left out).
///
/// Cycle k runs from foot k to foot k + 1 (interval I). Its shape is the pulse shape time-warped to a duration
/// D = max(I, local median interval): the upstroke takes u = u0 (D / T0)^exponent (u0, T0 the shape's own), the
/// diastole the rest. A cycle cut short by an early next beat (I < D) leaves its height decaying under the next
/// pulse (the next pulse rides on it), as on a real premature beat.
struct PulseRenderer {
  struct Cycle {
    var foot: Double
    var interval: Double
    var upstroke: Double
    var duration: Double
    var amplitude: Double
    var carry: Double
    var carryTime: Double
  }

  let p: EvalParameters
  let shape: PulseShape
  let cycles: [Cycle]
  // Respiration and drift, drawn once.
  let respirationBeta: Double
  let respirationPeriod: Double
  let respirationPhase: Double
  let wanderPhase: Double
  let driftPhases: [Double]

  init(_ p: EvalParameters, schedule: BeatSchedule, shape: PulseShape, random: inout SplitMix64) {
    self.p = p
    self.shape = shape
    let feet = schedule.feet
    let intervals = (0..<(feet.count - 1)).map { feet[$0 + 1] - feet[$0] }
    let reference = intervals.indices.map { k in
      SignalMath.median(Array(intervals[max(0, k - 4)...min(intervals.count - 1, k + 4)]))
    }
    let u0 = shape.peakPhase * shape.cycleSeconds
    var cycles: [Cycle] = []
    var carry = 0.0
    for k in intervals.indices {
      let interval = intervals[k]
      let duration = max(interval, reference[k])
      let scaled = u0 * pow(duration / shape.cycleSeconds, p.upstrokeExponent)
      let upstroke = max(0.04, min(scaled, 0.45 * duration, 0.8 * interval))
      let filling = k > 0 ? intervals[k - 1] / reference[k - 1] : 1
      let strength = min(1.6, max(0.4, 1 + p.frankStarlingGain * (filling - 1)))
      let amplitude = strength * (1 + p.amplitudeJitter * random.gaussian())
      let cycle = Cycle(
        foot: feet[k], interval: interval, upstroke: upstroke, duration: duration, amplitude: amplitude, carry: carry,
        carryTime: p.carryTimeConstant * reference[k])
      // The height left at the next foot (about 0 when the cycle ran its full course).
      carry = Self.pulse(cycle, shape: shape, at: interval)
      cycles.append(cycle)
    }
    self.cycles = cycles
    respirationPeriod = random.uniform(30, 90)
    // Instantaneous breathing rate within ±10 % of the mean.
    respirationBeta = 0.1 * p.respirationHz * respirationPeriod
    respirationPhase = random.uniform(0, 2 * Double.pi)
    wanderPhase = random.uniform(0, 2 * Double.pi)
    driftPhases = [random.uniform(0, 2 * Double.pi), random.uniform(0, 2 * Double.pi)]
  }

  // MARK: - The continuous model

  /// Phase of the shape at `tau` seconds after the cycle's foot (piecewise-linear warp, knot at the peak).
  static func phase(_ c: Cycle, shape: PulseShape, at tau: Double) -> Double {
    let knot = shape.peakPhase
    if tau < c.upstroke { return knot * tau / c.upstroke }
    return min(0.999_999, knot + (1 - knot) * (tau - c.upstroke) / (c.duration - c.upstroke))
  }

  /// The cycle's pulse (pulse heights, upward) `tau` seconds after its foot, the carried height included.
  static func pulse(_ c: Cycle, shape: PulseShape, at tau: Double) -> Double {
    c.amplitude * shape.value(atPhase: phase(c, shape: shape, at: tau)) + c.carry * exp(-tau / c.carryTime)
  }

  /// Respiratory phase (radians) at `t`.
  func respiration(_ t: Double) -> Double {
    2 * Double.pi * p.respirationHz * t + respirationBeta * sin(2 * Double.pi * t / respirationPeriod)
      + respirationPhase
  }

  /// Amplitude modulation by breathing.
  func modulation(_ t: Double) -> Double { 1 + p.amplitudeModulation * sin(respiration(t)) }

  /// Light level without the pulse: DC, slow drift and respiratory wander (counts).
  func baseline(_ t: Double) -> Double {
    let ac = p.acPercent / 100 * p.dcCounts
    let drift =
      0.6 * sin(2 * Double.pi * t / p.driftPeriods[0] + driftPhases[0])
      + 0.4 * sin(2 * Double.pi * t / p.driftPeriods[1] + driftPhases[1])
    return p.dcCounts * (1 + p.driftPercent / 100 * drift) + p.wanderToPulse * ac * sin(respiration(t) + wanderPhase)
  }

  // MARK: - Truth

  /// The systolic peak of cycle `k`: the maximum of modulation × pulse near the warp's knot, on a 2 ms grid and
  /// then by golden-section search to 1 µs.
  func systolicPeak(_ k: Int) -> Double {
    let c = cycles[k]
    let f = { (tau: Double) -> Double in self.modulation(c.foot + tau) * Self.pulse(c, shape: self.shape, at: tau) }
    let lo = 0.3 * c.upstroke
    let hi = min(1.7 * c.upstroke, 0.97 * c.interval)
    var best = lo
    var bestValue = -Double.infinity
    var tau = lo
    while tau <= hi {
      let v = f(tau)
      if v > bestValue {
        bestValue = v
        best = tau
      }
      tau += 0.002
    }
    var a = max(lo, best - 0.002)
    var b = min(hi, best + 0.002)
    let ratio = (5.0.squareRoot() - 1) / 2
    var x1 = b - ratio * (b - a)
    var x2 = a + ratio * (b - a)
    var f1 = f(x1)
    var f2 = f(x2)
    while b - a > 1e-6 {
      if f1 < f2 {
        a = x1
        x1 = x2
        f1 = f2
        x2 = a + ratio * (b - a)
        f2 = f(x2)
      } else {
        b = x2
        x2 = x1
        f2 = f1
        x1 = b - ratio * (b - a)
        f1 = f(x1)
      }
    }
    return c.foot + 0.5 * (a + b)
  }
}
