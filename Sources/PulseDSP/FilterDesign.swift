import PortableMath

// Filter coefficient design, kept apart from the filters' state as CMSIS-DSP keeps `*_init` apart from
// `*_process`: a design is computed once in Double from the corner and the rate, then quantised; the filters in
// FixedPointFilters.swift only hold a design and their delay line. The Double coefficients stay readable so that
// tests compare them with scipy.signal's.

/// First-order high-pass y[n] = a · (y[n−1] + x[n] − x[n−1]) with a = e^(−2π fc / fs): the impulse-invariant
/// RC high-pass. Its DC gain is exactly zero whatever a is quantised to.
struct HighPassDesign: Sendable, Equatable {
  /// The pole a, in Double.
  let coefficient: Double
  /// a in Q15, rounded.
  let coefficientQ15: Int64

  init(cornerHz: Double, sampleRateHz: Double) {
    coefficient = PortableMath.exp(-2 * Double.pi * cornerHz / sampleRateHz)
    coefficientQ15 = Int64((coefficient * 32_768).rounded())
  }

  /// Numerator and denominator of H(z) = a (1 − z⁻¹) / (1 − a z⁻¹), scipy.signal's (b, a) order.
  var numerator: [Double] { [coefficient, -coefficient] }
  var denominator: [Double] { [1, -coefficient] }
}

/// Second-order Butterworth low-pass by the bilinear transform with the corner pre-warped: what
/// `scipy.signal.butter(2, cornerHz, fs=sampleRateHz)` designs. b = b0 · [1, 2, 1], a = [1, a1, a2].
struct ButterworthLowPassDesign: Sendable, Equatable {
  let b0: Double
  let a1: Double
  let a2: Double
  /// The same in Q16, rounded (what the filter runs on).
  let b0Q16: Int64
  let a1Q16: Int64
  let a2Q16: Int64
  /// Group delay at 1.2 Hz (a resting pulse's fundamental) of the quantised filter, in samples: subtracted from
  /// beat times.
  let groupDelaySamples: Double

  init(cornerHz: Double, sampleRateHz: Double) {
    let k = PortableMath.tan(Double.pi * cornerHz / sampleRateHz)
    let q = 1 / 2.squareRoot()
    let norm = 1 / (1 + k / q + k * k)
    b0 = k * k * norm
    a1 = 2 * (k * k - 1) * norm
    a2 = (1 - k / q + k * k) * norm
    b0Q16 = Int64((b0 * 65_536).rounded())
    a1Q16 = Int64((a1 * 65_536).rounded())
    a2Q16 = Int64((a2 * 65_536).rounded())
    groupDelaySamples = Self.groupDelay(
      b: [Double(b0Q16), 2 * Double(b0Q16), Double(b0Q16)], a: [65_536, Double(a1Q16), Double(a2Q16)],
      frequency: 1.2 / sampleRateHz)
  }

  /// scipy.signal's (b, a) order.
  var numerator: [Double] { [b0, 2 * b0, b0] }
  var denominator: [Double] { [1, a1, a2] }

  /// Group delay −dφ/dω of B(z)/A(z) at `frequency` (cycles per sample), by the standard formula
  /// Re(Σ k c_k e^{−jωk} / Σ c_k e^{−jωk}) for the numerator minus the same for the denominator.
  static func groupDelay(b: [Double], a: [Double], frequency: Double) -> Double {
    func delay(_ c: [Double]) -> Double {
      let w = 2 * Double.pi * frequency
      var re = 0.0, im = 0.0, rre = 0.0, rim = 0.0
      for (k, ck) in c.enumerated() {
        let phase = -w * Double(k)
        let cosine = PortableMath.cos(phase), sine = PortableMath.sin(phase)
        re += ck * cosine
        im += ck * sine
        rre += Double(k) * ck * cosine
        rim += Double(k) * ck * sine
      }
      let denominator = re * re + im * im
      return denominator == 0 ? 0 : (rre * re + rim * im) / denominator
    }
    return delay(b) - delay(a)
  }
}
