/// An unevaluated sum `hi + lo` of two Doubles with |lo| ≤ ulp(hi) / 2: about 106 bits of precision (Dekker
/// 1971; the QD library's algorithms, Hida, Li & Bailey 2001). `PortableMath` evaluates its series in it, so that
/// the one rounding to Double at the end is the correct one except for inputs whose true result lies within
/// ~2^-100 of a rounding boundary.
///
/// The operations stay out of line (`@inline(never)`): inlined, each would repeat a few dozen soft-float calls on
/// a Cortex-M4 at every use, tripling PortableMath's code for no speed anyone needs (docs/embedded.md).
///
/// Only +, −, × and ÷ of Doubles are used (correctly rounded by IEEE 754 on every target, in hardware or in
/// libgcc/compiler-rt's soft float), no fused multiply-add: products are split with Veltkamp's constant. So the
/// same inputs give the same bits on x86-64, AArch64 and a Cortex-M4 without a double-precision FPU.
struct DoubleDouble: Sendable {
  var hi: Double
  var lo: Double

  init(_ hi: Double, _ lo: Double = 0) {
    self.hi = hi
    self.lo = lo
  }

  /// The nearest Double (hi is already fl(hi + lo) for a normalised pair; the sum keeps that explicit).
  var value: Double { hi + lo }

  // MARK: - Error-free transformations

  /// s + e == a + b exactly (Knuth's TwoSum, any magnitudes).
  static func twoSum(_ a: Double, _ b: Double) -> DoubleDouble {
    let s = a + b
    let bb = s - a
    return DoubleDouble(s, (a - (s - bb)) + (b - bb))
  }

  /// s + e == a + b exactly, for |a| ≥ |b| (Dekker's FastTwoSum).
  static func quickTwoSum(_ a: Double, _ b: Double) -> DoubleDouble {
    let s = a + b
    return DoubleDouble(s, b - (s - a))
  }

  /// Veltkamp's split into two halves of 26 bits each (|a| < 2^996).
  static func split(_ a: Double) -> (Double, Double) {
    let c = 134_217_729.0 * a  // 2^27 + 1
    let high = c - (c - a)
    return (high, a - high)
  }

  /// p + e == a × b exactly (Dekker's TwoProduct without FMA).
  @inline(never)
  static func twoProduct(_ a: Double, _ b: Double) -> DoubleDouble {
    let p = a * b
    let (ah, al) = split(a)
    let (bh, bl) = split(b)
    return DoubleDouble(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
  }

  // MARK: - Arithmetic

  @inline(never)
  static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    var s = twoSum(a.hi, b.hi)
    let t = twoSum(a.lo, b.lo)
    s.lo += t.hi
    s = quickTwoSum(s.hi, s.lo)
    s.lo += t.lo
    return quickTwoSum(s.hi, s.lo)
  }

  static prefix func - (a: DoubleDouble) -> DoubleDouble { DoubleDouble(-a.hi, -a.lo) }

  static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble { a + (-b) }

  @inline(never)
  static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    var p = twoProduct(a.hi, b.hi)
    p.lo += a.hi * b.lo + a.lo * b.hi
    return quickTwoSum(p.hi, p.lo)
  }

  @inline(never)
  static func * (a: DoubleDouble, b: Double) -> DoubleDouble {
    var p = twoProduct(a.hi, b)
    p.lo += a.lo * b
    return quickTwoSum(p.hi, p.lo)
  }

  /// Long division with three quotient digits (QD's accurate division).
  @inline(never)
  static func / (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let q1 = a.hi / b.hi
    var r = a - b * q1
    let q2 = r.hi / b.hi
    r = r - b * q2
    let q3 = r.hi / b.hi
    return quickTwoSum(q1, q2) + DoubleDouble(q3)
  }

  /// √a for a ≥ 0: the Double root refined by one Newton step in double-double (Karp & Markstein).
  @inline(never)
  func squareRoot() -> DoubleDouble {
    guard hi > 0 else { return DoubleDouble(0) }
    let q = hi.squareRoot()
    let residual = self - DoubleDouble.twoProduct(q, q)
    return DoubleDouble.quickTwoSum(q, residual.hi / (2 * q))
  }

  /// self × 2^n, exact while the result stays normal.
  func scaled(by n: Int) -> DoubleDouble {
    DoubleDouble(Double(sign: .plus, exponent: n, significand: hi), Double(sign: .plus, exponent: n, significand: lo))
  }

  // MARK: - Constants (each a correctly rounded double-double of the constant)

  /// ln 2.
  static let ln2 = DoubleDouble(0x1.62E42FEFA39EFp-1, 0x1.ABC9E3B39803Fp-56)
  /// π/2 in three parts for argument reduction (hi + mid + lo, 159 bits).
  static let halfPiHi = 0x1.921FB54442D18p0
  static let halfPiMid = 0x1.1A62633145C07p-54
  static let halfPiLo = -0x1.F1976B7ED8FBCp-110
  static let halfPi = DoubleDouble(halfPiHi, halfPiMid)
}
