import Indicators
import Raster
import StressModel
import Testing

@Suite("Colour-blind check of the four category colours (seeds' simulation matrices)")
struct ColourVisionTests {
  func check(_ a: StressCategory, _ b: StressCategory, _ deficiency: ColourVisionDeficiency?) -> ColourPairCheck {
    ColourPairCheck.all().first { $0.first == a && $0.second == b && $0.deficiency == deficiency }!
  }

  @Test("The matrices are the seeds': deuteranopia r'=.625r+.375g g'=.7r+.3g; protanopia; tritanopia b'=.433r+.567b")
  func matrices() {
    let yellow = StressCategory.mild.colour  // #FFCC00
    let deut = ColourVisionDeficiency.deuteranopia.simulate(yellow)
    #expect(abs(deut.red - (0.625 + 0.375 * 0.8)) < 1e-9 && abs(deut.green - (0.7 + 0.3 * 0.8)) < 1e-9 && deut.blue == 0)
    let trit = ColourVisionDeficiency.tritanopia.simulate(yellow)
    #expect(abs(trit.red - (0.95 + 0.05 * 0.8)) < 1e-9 && abs(trit.green - 0.8) < 1e-9 && abs(trit.blue - 0.433) < 1e-9)
  }

  @Test("ΔE*ab values agree with an independent computation (Python, same formulas) to 0.1")
  func deltaEValues() {
    // Computed outside Swift from the same sRGB → CIELAB (D65) definition, for the doc's table.
    let expected: [(StressCategory, StressCategory, ColourVisionDeficiency?, Double)] = [
      (.mild, .moderate, nil, 32.4), (.moderate, .high, nil, 48.4), (.relaxed, .high, nil, 133.5),
      (.mild, .moderate, .deuteranopia, 7.9), (.moderate, .high, .deuteranopia, 20.0), (.mild, .high, .deuteranopia, 27.5),
      (.mild, .moderate, .protanopia, 11.0), (.moderate, .high, .protanopia, 26.8), (.mild, .high, .protanopia, 37.4),
      (.mild, .moderate, .tritanopia, 34.5), (.relaxed, .mild, .tritanopia, 69.6),
    ]
    for (a, b, deficiency, value) in expected {
      #expect(abs(check(a, b, deficiency).deltaE - value) < 0.1, "\(a)/\(b) \(deficiency?.rawValue ?? "normal")")
    }
  }

  @Test("Red-green colour blindness merges mild, moderate and high into yellows; normal and tritan vision do not")
  func hardPairs() {
    let hard = ColourPairCheck.all().filter(\.isHardToTellApart)
      .map { "\($0.deficiency?.rawValue ?? "normal") \($0.first)/\($0.second)" }
    #expect(Set(hard) == [
      "deuteranopia mild/moderate", "deuteranopia moderate/high", "deuteranopia mild/high",
      "protanopia mild/moderate", "protanopia moderate/high",
    ])
  }

  @Test("Every pair that is hard to tell apart by colour differs in blink rhythm, fill pattern and icon")
  func patternsCoverTheHardPairs() {
    for pair in ColourPairCheck.all() where pair.isHardToTellApart {
      #expect(pair.first.blink != pair.second.blink)
      #expect(pair.first.pattern != pair.second.pattern)
      #expect(pair.first.icon != pair.second.icon)
      // On a single LED the two rhythms differ within one 2 s period
      let a = LEDProgram(state: .category(pair.first), wiring: LEDWiring(chipLabel: "x", layout: .single(.offset(0))))
      let b = LEDProgram(state: .category(pair.second), wiring: LEDWiring(chipLabel: "x", layout: .single(.offset(0))))
      let instants = stride(from: Int64(0), to: 2_000, by: 25)
      #expect(instants.contains { (a.litMask(atElapsed: $0) != 0) != (b.litMask(atElapsed: $0) != 0) })
    }
  }
}
