// Fixed-point building blocks of the detector. Q formats (CMSIS-DSP style, written in the names):
// - Signals are Int64 in "Q8 input units": input LSB × 256. Eight fraction bits keep the filters' rounding
//   far below one input LSB; magnitudes stay below 2^41 for any Int32 input (see each `step`).
// - Coefficients are Int64 holding Q15 or Q16 fixed-point numbers, computed in Double once in `init` and
//   rounded. The per-sample path is integer only and uses wrapping arithmetic (`&+`, `&*`): the bounds noted
//   at each step show no product or sum comes near 2^63.

/// Boxcar decimator: sums `factor` input samples and returns their mean in Q8 input units.
///
/// A boxcar has nulls at multiples of the output rate, and the detector only ever decimates to ≥ 125 Hz, so
/// what folds back into the 0.5-8 Hz pulse band is attenuated by more than 20 dB, and mains (50/60 Hz) stays
/// below the output Nyquist rate, where the low-pass removes it.
struct BoxcarDecimator: Sendable {
  /// Input samples per output sample, 1...1024.
  let factor: Int
  /// round(2^20 / factor): the mean in Q8 is (sum × reciprocal) >> 12.
  let reciprocalQ20: Int64
  private(set) var sum: Int64 = 0
  private(set) var remaining: Int

  init(factor: Int) {
    self.factor = factor
    reciprocalQ20 = Int64((Double(1 << 20) / Double(factor)).rounded())
    remaining = factor
  }

  /// Adds one sample; returns true when `factor` samples have been summed (then read `takeMeanQ8()`).
  @inline(__always)
  mutating func add(_ sample: Int32) -> Bool {
    sum &+= Int64(sample)  // |sum| ≤ 1024 × 2^31 = 2^41
    remaining &-= 1
    return remaining == 0
  }

  /// The mean of the last `factor` samples in Q8 input units, and a fresh start.
  @inline(__always)
  mutating func takeMeanQ8() -> Int64 {
    // |sum × reciprocal| ≤ 2^31 × factor × 2^20 / factor = 2^51.
    let mean = (sum &* reciprocalQ20) >> 12
    sum = 0
    remaining = factor
    return mean
  }

  mutating func reset() {
    sum = 0
    remaining = factor
  }
}

/// First-order high-pass (DC and drift removal), the state half of `HighPassDesign`:
/// y[n] = a · (y[n−1] + x[n] − x[n−1]) with a in Q15. Its DC gain is exactly zero, so an 18-bit raw intensity
/// with a DC of 2^17 leaves only the pulse.
struct HighPassQ15: Sendable {
  let design: HighPassDesign
  /// The pole in use, Q15: the design's, or another corner's set by the caller (`BeatDetector.watchBreath`). The
  /// state carries over, so the output goes on without a step; `reset` returns to the design's.
  var coefficientQ15: Int64
  private var previousInput: Int64 = 0
  private var output: Int64 = 0
  private var primed = false

  init(design: HighPassDesign) {
    self.design = design
    coefficientQ15 = design.coefficientQ15
  }

  init(cornerHz: Double, sampleRateHz: Double) {
    self.init(design: HighPassDesign(cornerHz: cornerHz, sampleRateHz: sampleRateHz))
  }

  @inline(__always)
  mutating func step(_ input: Int64) -> Int64 {
    if !primed {
      // Start from the first sample, not from zero: a large DC would otherwise ring for seconds.
      primed = true
      previousInput = input
    }
    // |input| < 2^39 (Q8 of an Int32) and |output| < 2^41, so |output + Δinput| < 2^42: product < 2^57.
    output = (coefficientQ15 &* (output &+ input &- previousInput) &+ (1 << 14)) >> 15
    previousInput = input
    return output
  }

  mutating func reset() {
    previousInput = 0
    output = 0
    primed = false
    coefficientQ15 = design.coefficientQ15
  }
}

/// Second-order Butterworth low-pass, the state half of `ButterworthLowPassDesign`: direct form I in Q16,
/// y = (b0 (x[n] + 2x[n−1] + x[n−2]) − a1 y[n−1] − a2 y[n−2]) >> 16. Smooths the pulse and removes mains, ripple
/// and quantisation steps before peak picking (Elgendi 2013 used 8 Hz: the systolic upstroke keeps its shape,
/// the dicrotic wave stays separable).
struct ButterworthLowPassQ16: Sendable {
  let design: ButterworthLowPassDesign
  private var x1: Int64 = 0
  private var x2: Int64 = 0
  private var y1: Int64 = 0
  private var y2: Int64 = 0

  init(design: ButterworthLowPassDesign) {
    self.design = design
  }

  init(cornerHz: Double, sampleRateHz: Double) {
    self.init(design: ButterworthLowPassDesign(cornerHz: cornerHz, sampleRateHz: sampleRateHz))
  }

  /// Group delay at 1.2 Hz in output samples (the design's).
  var groupDelaySamples: Double { design.groupDelaySamples }

  @inline(__always)
  mutating func step(_ input: Int64) -> Int64 {
    // The high-pass output is below 2^41 (its impulse response has an L1 norm of 2 and |input| < 2^39), so
    // b0 · (x + 2x1 + x2) < 2^16 · 2^43 = 2^59; |a1| < 2^17, |a2| < 2^16 and |y| < 2^42 keep the feedback
    // products below 2^59 too: the sum stays below 2^61.
    let d = design
    let output = (d.b0Q16 &* (input &+ (x1 &<< 1) &+ x2) &- d.a1Q16 &* y1 &- d.a2Q16 &* y2 &+ (1 << 15)) >> 16
    x2 = x1
    x1 = input
    y2 = y1
    y1 = output
    return output
  }

  mutating func reset() {
    x1 = 0
    x2 = 0
    y1 = 0
    y2 = 0
  }
}

/// The detector's band-pass (Elgendi 2013's 0.5-8 Hz): the high-pass then the low-pass, one working sample at
/// a time.
struct BandPass: Sendable {
  var highPass: HighPassQ15
  var lowPass: ButterworthLowPassQ16

  init(highPass: HighPassDesign, lowPass: ButterworthLowPassDesign) {
    self.highPass = HighPassQ15(design: highPass)
    self.lowPass = ButterworthLowPassQ16(design: lowPass)
  }

  @inline(__always)
  mutating func step(_ input: Int64) -> Int64 { lowPass.step(highPass.step(input)) }

  mutating func reset() {
    highPass.reset()
    lowPass.reset()
  }
}
