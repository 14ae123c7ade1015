import Foundation
import TestSupport
import Testing

@Suite("stressmon score")
struct ScoreCommandTests {
  @Test("--json prints level, category, mood, icon, pattern and confidence")
  func jsonOutput() throws {
    let result = try CLIRunner.run(["score", "--hrv", "25", "--hr", "60", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try CLIRunner.json(result)
    #expect(abs((json["level"] as? Double ?? -1) - 40.2) < 0.05)
    #expect(json["category"] as? String == "mild")
    #expect(json["mood"] as? String == "concerned")
    #expect(json["icon"] as? String == "circle")
    #expect(json["pattern"] as? String == "diagonal")
    #expect(abs((json["confidence"] as? Double ?? -1) - 0.7) < 1e-9)  // default baseline
    #expect(result.stderr.isEmpty)
  }

  @Test("--json carries the level at full precision: 24.99 is not printed as 25.0 next to 'relaxed'")
  func jsonLevelFullPrecision() throws {
    // Given an HRV whose level is just under the mild boundary: 70 × ((50 − 36.2) / 50)^0.8 = 24.99339...
    let result = try CLIRunner.run(["score", "--hrv", "36.2", "--hr", "60", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try CLIRunner.json(result)
    let level = try #require(json["level"] as? Double)
    // Then the machine output says exactly what the category was computed from
    #expect(abs(level - 24.993398036101254) < 1e-9, "level \(level)")
    #expect(level < 25)
    #expect(json["category"] as? String == "relaxed")
    // ...and the sentence rounds down, never into the next category
    let text = try CLIRunner.run(["score", "--hrv", "36.2", "--hr", "60"])
    #expect(text.stdout.contains("Stress 24/100: relaxed"), "\(text.stdout)")
  }

  @Test("A personal baseline changes the score and full confidence")
  func personalBaseline() throws {
    let result = try CLIRunner.run(["score", "--hrv", "62", "--hr", "58", "--baseline-hrv", "55", "--resting-hr", "61", "--json"])
    let json = try CLIRunner.json(result)
    #expect(json["level"] as? Double == 0)
    #expect(json["category"] as? String == "relaxed")
    #expect(json["mood"] as? String == "sleeping")
    #expect(json["confidence"] as? Double == 1)
  }

  @Test("Without --json a human sentence")
  func sentence() throws {
    let result = try CLIRunner.run(["score", "--hrv", "10", "--hr", "150"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("high"))
    #expect(result.stdout.contains("square"))
  }

  @Test("Absurd or malformed input: one line on stderr naming the flag, exit 64", arguments: [
    (["--hrv", "abc", "--hr", "70"], "--hrv"),
    (["--hrv", "-5", "--hr", "70"], "--hrv"),
    (["--hrv", "10000", "--hr", "70"], "--hrv"),
    (["--hrv", "40", "--hr", "0"], "--hr"),
    (["--hrv", "40", "--hr", "nan"], "--hr"),
    (["--hrv", "40", "--hr", "70", "--resting-hr", "0"], "--resting-hr"),
    (["--hrv", "40"], "--hr"),
  ])
  func badInput(arguments: [String], flag: String) throws {
    let result = try CLIRunner.run(["score"] + arguments)
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(flag))
  }
}
