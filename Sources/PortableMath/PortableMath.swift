/// The elementary functions the pure core needs (the filter design: `exp`, `exp2`, `tan`, `sin`, `cos`; the stress
/// formula: `pow`, `atan`), written once in Swift so that Linux, macOS and a microcontroller compute the same bits.
///
/// Why not the C library's: the Linux build used glibc's libm, an Embedded Swift build would use picolibc's or
/// newlib's, and libms disagree in the last bit on some inputs. A 1-ulp difference in `pow` changes a stress level
/// that `analyze --json` prints unrounded; one in `tan` or `exp` can move a Q16 coefficient across a rounding
/// boundary and change every beat after it. The QEMU check (docs/embedded.md) compares the microcontroller's output
/// with Linux's bit for bit, so both must run this same code.
///
/// How: each function reduces its argument exactly (or to ~2^-106), sums its series in double-double
/// (`DoubleDouble`, about 106 bits) and rounds once. The result is the correctly rounded one unless the true value
/// lies within ~2^-100 of the midpoint between two Doubles; glibc's results (correctly rounded in all but rare
/// cases) agree on every input the test suite compares (docs/embedded.md gives the counts). Speed is not the aim:
/// a call costs a few hundred floating-point operations, and the core calls these at set-up and once per window.
/// Each public function is `@inline(never)`: an inlined copy costs up to a kilobyte of flash at every call site.
///
/// Domain notes: subnormal results of `exp`/`exp2`/`pow` are rounded twice (never needed here); `sin`, `cos` and
/// `tan` reduce by π/2 with 159 bits, accurate for |x| < 2^30 (the core's arguments are below π).
public enum PortableMath {
  // MARK: - Exponentials

  /// e^x.
  @inline(never)
  public static func exp(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x > 709.782_712_893_384 { return .infinity }
    if x < -745.133_219_101_941_2 { return 0 }
    if x == 0 { return 1 }
    return exponential(DoubleDouble(x))
  }

  /// 2^x.
  @inline(never)
  public static func exp2(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x >= 1024 { return .infinity }
    if x < -1075 { return 0 }
    if x == x.rounded(.towardZero) { return Double(sign: .plus, exponent: Int(x), significand: 1) }
    return exponential(DoubleDouble.ln2 * x)
  }

  /// x^y with C99's special cases (pow(x, ±0) = 1, pow(1, y) = 1, pow(−x, integer y) by parity, NaN for a
  /// negative base with a non-integer exponent).
  @inline(never)
  public static func pow(_ x: Double, _ y: Double) -> Double {
    if y == 0 || x == 1 { return 1 }
    if x.isNaN || y.isNaN { return .nan }
    let yIsInteger = y == y.rounded(.towardZero)
    let yIsOdd = yIsInteger && abs(y) < 0x1p53 && Int64(y) & 1 == 1
    let negativeResult = x.sign == .minus && yIsOdd
    let a = abs(x)
    if y.isInfinite {
      if a == 1 { return 1 }
      return (a < 1) == (y < 0) ? .infinity : 0
    }
    if a == 0 || a.isInfinite {
      let huge = (a == 0) == (y < 0)
      let magnitude: Double = huge ? .infinity : 0
      return negativeResult ? -magnitude : magnitude
    }
    if x < 0 && !yIsInteger { return .nan }
    let t = logarithm(a) * y
    let magnitude: Double
    if t.hi > 709.79 {
      magnitude = .infinity
    } else if t.hi < -745.2 {
      magnitude = 0
    } else {
      magnitude = exponential(t)
    }
    return negativeResult ? -magnitude : magnitude
  }

  // MARK: - Trigonometric

  /// sin x (x in radians).
  @inline(never)
  public static func sin(_ x: Double) -> Double {
    if x == 0 || x.isNaN { return x }
    if x.isInfinite { return .nan }
    let (quadrant, r) = reduce(x)
    switch quadrant {
    case 0: return sine(r).value
    case 1: return cosine(r).value
    case 2: return -sine(r).value
    default: return -cosine(r).value
    }
  }

  /// cos x (x in radians).
  @inline(never)
  public static func cos(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x.isInfinite { return .nan }
    if x == 0 { return 1 }
    let (quadrant, r) = reduce(x)
    switch quadrant {
    case 0: return cosine(r).value
    case 1: return -sine(r).value
    case 2: return -cosine(r).value
    default: return sine(r).value
    }
  }

  /// tan x (x in radians).
  @inline(never)
  public static func tan(_ x: Double) -> Double {
    if x == 0 || x.isNaN { return x }
    if x.isInfinite { return .nan }
    let (quadrant, r) = reduce(x)
    let s = sine(r)
    let c = cosine(r)
    return quadrant & 1 == 0 ? (s / c).value : (-(c / s)).value
  }

  /// atan x, in (−π/2, π/2).
  @inline(never)
  public static func atan(_ x: Double) -> Double {
    if x == 0 || x.isNaN { return x }
    let a = abs(x)
    let magnitude: Double
    if a.isInfinite {
      magnitude = DoubleDouble.halfPiHi
    } else {
      // atan a = π/2 − atan(1/a) above 1; then three halvings atan v = 2 atan(v / (1 + √(1 + v²))) bring the
      // argument under tan(π/32) ≈ 0.098, where the series needs 17 terms.
      let inverted = a > 1
      var v = inverted ? DoubleDouble(1) / DoubleDouble(a) : DoubleDouble(a)
      for _ in 0..<3 {
        v = v / (DoubleDouble(1) + (DoubleDouble(1) + v * v).squareRoot())
      }
      let z = v * v
      var power = v
      var sum = v
      var n = 1.0
      while true {
        power = -(power * z)
        let term = power / DoubleDouble(2 * n + 1)
        sum = sum + term
        if abs(term.hi) < 0x1p-110 * abs(sum.hi) { break }
        n += 1
      }
      let angle = sum.scaled(by: 3)
      magnitude = inverted ? (DoubleDouble.halfPi - angle).value : angle.value
    }
    return x < 0 ? -magnitude : magnitude
  }

  // MARK: - Private

  /// e^a for |a.hi| ≤ 709.8, rounded once: a = k ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series.
  private static func exponential(_ a: DoubleDouble) -> Double {
    let k = (a.hi / DoubleDouble.ln2.hi).rounded()
    let r = a - DoubleDouble.ln2 * k
    var term = DoubleDouble(1)
    var sum = DoubleDouble(1)
    var n = 1.0
    while true {
      term = term * r / DoubleDouble(n)
      sum = sum + term
      if abs(term.hi) < 0x1p-110 { break }
      n += 1
    }
    return Double(sign: .plus, exponent: Int(k), significand: sum.value)
  }

  /// ln a for finite a > 0 in double-double: a = m 2^e with m in [√½, √2), ln m = 2 atanh s with
  /// s = (m − 1)/(m + 1), |s| ≤ 0.172, by its series (23 terms at most).
  private static func logarithm(_ a: Double) -> DoubleDouble {
    var m = a.significand
    var e = Int(a.exponent)
    if m > 1.414_213_562_373_095 {
      m /= 2
      e += 1
    }
    let s = DoubleDouble(m - 1) / DoubleDouble.twoSum(m, 1)
    let z = s * s
    var power = DoubleDouble(1)
    var sum = DoubleDouble(1)
    var n = 1.0
    while true {
      power = power * z
      let term = power / DoubleDouble(2 * n + 1)
      sum = sum + term
      if abs(term.hi) < 0x1p-110 { break }
      n += 1
    }
    return DoubleDouble.ln2 * Double(e) + (s * sum).scaled(by: 1)
  }

  /// x = k π/2 + r with |r| ≤ π/4 (to ~2^-106 for |x| < 2^30); returns k mod 4 and r.
  private static func reduce(_ x: Double) -> (Int, DoubleDouble) {
    let k = (x / DoubleDouble.halfPiHi).rounded()
    guard k != 0 else { return (0, DoubleDouble(x)) }
    let first = DoubleDouble.twoProduct(k, DoubleDouble.halfPiHi)
    var r = DoubleDouble.twoSum(x, -first.hi) - DoubleDouble(first.lo)
    r = r - DoubleDouble.twoProduct(k, DoubleDouble.halfPiMid)
    r = r - DoubleDouble(k * DoubleDouble.halfPiLo)
    let quadrant = Int(k.truncatingRemainder(dividingBy: 4))
    return (quadrant < 0 ? quadrant + 4 : quadrant, r)
  }

  /// sin r for |r| ≤ π/4 by its Taylor series.
  private static func sine(_ r: DoubleDouble) -> DoubleDouble {
    let z = r * r
    var term = r
    var sum = r
    var n = 1.0
    while true {
      term = -(term * z) / DoubleDouble((2 * n) * (2 * n + 1))
      sum = sum + term
      if abs(term.hi) <= 0x1p-110 * abs(sum.hi) { break }
      n += 1
    }
    return sum
  }

  /// cos r for |r| ≤ π/4 by its Taylor series.
  private static func cosine(_ r: DoubleDouble) -> DoubleDouble {
    let z = r * r
    var term = DoubleDouble(1)
    var sum = DoubleDouble(1)
    var n = 1.0
    while true {
      term = -(term * z) / DoubleDouble((2 * n - 1) * (2 * n))
      sum = sum + term
      if abs(term.hi) <= 0x1p-110 { break }
      n += 1
    }
    return sum
  }
}
