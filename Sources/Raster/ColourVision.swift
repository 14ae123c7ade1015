import Platform
import StressModel

/// How the category colours look with a colour-vision deficiency, using the StressMonitor seeds' simulation
/// matrices (seed 001, "Transformation Matrices", applied to sRGB components as the seeds' preview does), and
/// how far apart they stay, as CIE 1976 ΔE*ab in CIELAB (D65).
public enum ColourVisionDeficiency: String, Sendable, CaseIterable, CustomStringConvertible {
  case deuteranopia, protanopia, tritanopia

  /// The seeds' matrix rows (r', g', b' from r, g, b).
  public var matrix: [[Double]] {
    switch self {
    case .deuteranopia: [[0.625, 0.375, 0], [0.7, 0.3, 0], [0, 0, 1]]
    case .protanopia: [[0.567, 0.433, 0], [0.558, 0.442, 0], [0, 0, 1]]
    case .tritanopia: [[0.95, 0.05, 0], [0, 1, 0], [0.433, 0, 0.567]]
    }
  }

  /// The colour as simulated, components 0-1.
  public func simulate(_ colour: RGBColour) -> (red: Double, green: Double, blue: Double) {
    let c = [Double(colour.red), Double(colour.green), Double(colour.blue)].map { $0 / 255 }
    let m = matrix
    func row(_ i: Int) -> Double { min(1, max(0, m[i][0] * c[0] + m[i][1] * c[1] + m[i][2] * c[2])) }
    return (row(0), row(1), row(2))
  }

  public var description: String { rawValue }
}

/// Colour differences for the colour-blind check.
public enum ColourDifference {
  /// Below this ΔE*ab two category colours shown one at a time (an LED, the hub page) are "hard to tell apart":
  /// the closest pair in normal vision (mild yellow / moderate orange, ΔE ≈ 32) is already the pair people confuse.
  public static let hardToTellApart = 30.0

  /// CIE 1976 ΔE*ab between two sRGB colours given as 0-1 components.
  public static func deltaE(_ a: (red: Double, green: Double, blue: Double),
                            _ b: (red: Double, green: Double, blue: Double)) -> Double {
    let la = lab(a)
    let lb = lab(b)
    return ((la.l - lb.l) * (la.l - lb.l) + (la.a - lb.a) * (la.a - lb.a) + (la.b - lb.b) * (la.b - lb.b)).squareRoot()
  }

  /// CIELAB (D65 white) of an sRGB colour (IEC 61966-2-1 transfer curve and matrix).
  public static func lab(_ c: (red: Double, green: Double, blue: Double)) -> (l: Double, a: Double, b: Double) {
    func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    let r = linear(c.red), g = linear(c.green), b = linear(c.blue)
    let x = 0.4124 * r + 0.3576 * g + 0.1805 * b
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    let z = 0.0193 * r + 0.1192 * g + 0.9505 * b
    func f(_ t: Double) -> Double {
      let delta = 6.0 / 29
      return t > delta * delta * delta ? cbrt(t) : t / (3 * delta * delta) + 4.0 / 29
    }
    let fx = f(x / 0.95047), fy = f(y / 1.0), fz = f(z / 1.08883)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
  }
}

/// One pair of category colours under one kind of vision.
public struct ColourPairCheck: Sendable, Hashable {
  public var first: StressCategory
  public var second: StressCategory
  /// nil = normal colour vision.
  public var deficiency: ColourVisionDeficiency?
  public var deltaE: Double

  public var isHardToTellApart: Bool { deltaE < ColourDifference.hardToTellApart }

  /// Every pair of category colours under normal vision and each deficiency.
  public static func all() -> [ColourPairCheck] {
    let categories = StressCategory.allCases
    var checks: [ColourPairCheck] = []
    for deficiency in [nil] + ColourVisionDeficiency.allCases.map(Optional.some) {
      for i in categories.indices {
        for j in categories.indices where j > i {
          let (a, b) = (categories[i].colour, categories[j].colour)
          let simulatedA = deficiency?.simulate(a) ?? (Double(a.red) / 255, Double(a.green) / 255, Double(a.blue) / 255)
          let simulatedB = deficiency?.simulate(b) ?? (Double(b.red) / 255, Double(b.green) / 255, Double(b.blue) / 255)
          checks.append(ColourPairCheck(first: categories[i], second: categories[j], deficiency: deficiency,
                                        deltaE: ColourDifference.deltaE(simulatedA, simulatedB)))
        }
      }
    }
    return checks
  }
}
