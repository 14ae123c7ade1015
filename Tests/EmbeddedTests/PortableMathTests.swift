import Platform  // the C library's exp, tan, pow... as the reference, and SplitMix64
import PortableMath
import Testing

/// PortableMath gives the correctly rounded result (docs/embedded.md). The C library's functions are the nearest
/// independent reference: within one ulp everywhere, identical on all but the inputs the C library misrounds.
@Suite("PortableMath: correctly rounded, the same bits on every target")
struct PortableMathTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var range: ClosedRange<Double>
    var portable: @Sendable (Double) -> Double
    var reference: @Sendable (Double) -> Double
    var testDescription: String { "\(name) on \(range)" }
  }

  static let cases: [Case] = [
    Case(name: "exp", range: -745...709, portable: { PortableMath.exp($0) }, reference: { exp($0) }),
    Case(name: "exp (high-pass poles)", range: -0.5...0, portable: { PortableMath.exp($0) }, reference: { exp($0) }),
    Case(name: "exp2", range: -1074...1023, portable: { PortableMath.exp2($0) }, reference: { exp2($0) }),
    Case(name: "exp2 (decay steps)", range: -0.1...0, portable: { PortableMath.exp2($0) }, reference: { exp2($0) }),
    Case(name: "tan (pre-warping)", range: 0...1.5, portable: { PortableMath.tan($0) }, reference: { tan($0) }),
    Case(name: "tan", range: -1000...1000, portable: { PortableMath.tan($0) }, reference: { tan($0) }),
    Case(name: "sin", range: -4...4, portable: { PortableMath.sin($0) }, reference: { sin($0) }),
    Case(name: "cos", range: -4...4, portable: { PortableMath.cos($0) }, reference: { cos($0) }),
    Case(name: "cos", range: -1e6...1e6, portable: { PortableMath.cos($0) }, reference: { cos($0) }),
    Case(name: "atan", range: -10...10, portable: { PortableMath.atan($0) }, reference: { atan($0) }),
    Case(name: "atan", range: -1e9...1e9, portable: { PortableMath.atan($0) }, reference: { atan($0) }),
    Case(
      name: "pow(x, 0.8) (the stress formula)", range: 0...1, portable: { PortableMath.pow($0, 0.8) },
      reference: { pow($0, 0.8) }),
    Case(name: "pow(1.7, y)", range: -300...300, portable: { PortableMath.pow(1.7, $0) }, reference: { pow(1.7, $0) }),
    Case(
      name: "pow(x, -2.5)", range: 1e-100...1e100, portable: { PortableMath.pow($0, -2.5) },
      reference: { pow($0, -2.5) }),
  ]

  @Test("within one ulp of the C library, and identical on all but a few inputs in a thousand", arguments: cases)
  func agreesWithTheCLibrary(_ c: Case) {
    var generator = SplitMix64(seed: 0x5EED_0016)
    let count = 20_000
    var differ = 0
    for _ in 0..<count {
      let x = c.range.lowerBound + (c.range.upperBound - c.range.lowerBound) * generator.unit()
      let a = c.portable(x)
      let b = c.reference(x)
      guard a != b else { continue }
      differ += 1
      let ulps = abs(Int64(bitPattern: a.bitPattern &- b.bitPattern))
      #expect(ulps <= 1, "\(c.name)(\(x)): \(a) vs \(b)")
    }
    #expect(differ * 200 <= count, "\(c.name): \(differ) of \(count) differ")
  }

  @Test("exact where the correctly rounded result is known without a reference")
  func exactWhereKnown() {
    var generator = SplitMix64(seed: 16)
    for _ in 0..<20_000 {
      let x = 1e-6 + 1e6 * generator.unit()
      // √x, x², 1/x and 2^n are correctly rounded by IEEE 754 itself: a correctly rounded pow must agree.
      #expect(PortableMath.pow(x, 0.5) == x.squareRoot(), "pow(\(x), 0.5)")
      #expect(PortableMath.pow(x, 2) == x * x, "pow(\(x), 2)")
      #expect(PortableMath.pow(x, -1) == 1 / x, "pow(\(x), -1)")
    }
    for n in -1074...1023 {
      #expect(PortableMath.exp2(Double(n)) == Double(sign: .plus, exponent: n, significand: 1))
    }
    #expect(PortableMath.atan(1) == Double.pi / 4)
    #expect(PortableMath.atan(.infinity) == Double.pi / 2)
    #expect(PortableMath.exp(0) == 1 && PortableMath.cos(0) == 1 && PortableMath.tan(0) == 0)
    #expect(PortableMath.sin(1e-10) == 1e-10 && PortableMath.atan(-1e-10) == -1e-10)
  }

  @Test("C99's special cases")
  func specialCases() {
    #expect(PortableMath.pow(0, 0.8) == 0)
    #expect(PortableMath.pow(-2, 3) == -8)
    #expect(PortableMath.pow(-2, 0.5).isNaN)
    #expect(PortableMath.pow(.nan, 0) == 1 && PortableMath.pow(1, .nan) == 1)
    #expect(PortableMath.pow(0, -1) == .infinity && PortableMath.pow(-0.0, -1) == -.infinity)
    #expect(PortableMath.pow(0.5, .infinity) == 0 && PortableMath.pow(2, .infinity) == .infinity)
    #expect(PortableMath.exp(710) == .infinity && PortableMath.exp(-746) == 0 && PortableMath.exp(.nan).isNaN)
    #expect(PortableMath.exp2(1024) == .infinity && PortableMath.exp2(-1076) == 0)
    #expect(PortableMath.sin(.infinity).isNaN && PortableMath.cos(.nan).isNaN && PortableMath.tan(-.infinity).isNaN)
  }
}
