import Foundation
import TestSupport
import Testing

/// Fixed-value options are argument-parser enums: `--help` lists their values, shell completions offer them, and
/// a wrong value stops in the parser with exit 64 and one line naming the flag and the values.
@Suite("Option values")
struct ArgumentValuesTests {
  @Test("--help lists the values of --mode, --category and --panel", arguments: [
    (["run", "--help"], "--mode", "desk, wearable, kiosk"),
    (["render", "--help"], "--category", "relaxed, mild, moderate, high"),
    (["render", "--help"], "--panel", "waveshare-2in13-v4, waveshare-2in9-v2, waveshare-1in54-v2"),
    (["record", "--help"], "--speed", "realtime, max"),
  ])
  func helpListsValues(arguments: [String], flag: String, values: String) throws {
    let result = try CLIRunner.run(arguments)
    #expect(result.status == 0, "\(result.stderr)")
    let help = result.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
    #expect(help.contains(flag))
    #expect(help.contains("(values: \(values)"), "\(result.stdout)")
  }

  @Test("The bash completion script offers the fixed values")
  func completions() throws {
    let result = try CLIRunner.run(["--generate-completion-script", "bash"])
    #expect(result.status == 0, "\(result.stderr)")
    // bash gets each list as 'a'$'\n''b'$'\n''c': one word per line.
    let script = result.stdout.replacingOccurrences(of: "'$'\\n''", with: " ")
    for words in ["desk wearable kiosk", "relaxed mild moderate high", "realtime max 10", "max30102 synthetic replay:"] {
      #expect(script.contains("-W '\(words)'"), "\(words)")
    }
  }

  @Test("A value outside the set: exit 64, one line naming the flag and the allowed values", arguments: [
    (["render", "--category", "calm", "--panel", "waveshare-2in13-v4", "--out", "x.png"], "'calm'", "'relaxed'"),
    (["render", "--category", "mild", "--panel", "lcd", "--out", "x.png"], "'lcd'", "'waveshare-2in9-v2'"),
    (["run", "--mode", "office"], "'--mode <mode>'", "'kiosk'"),
    (["record", "--board", "sim", "--out", "x.csv", "--speed", "fast"], "'--speed <speed>'", "'max'"),
    (["run", "--board", "sim", "--source", "camera"], "--source", "replay:FILE"),
  ])
  func rejected(arguments: [String], names: String, offers: String) throws {
    let result = try CLIRunner.run(arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(names) && result.stderr.contains(offers), "\(result.stderr)")
  }
  @Test("A number, speed or time option is parsed once, by the parser: exit 64, the flag, the value and the reason",
    arguments: [
      (["score", "--hrv", "5000", "--hr", "70"], "'5000' is invalid for '--hrv <ms>'", "plausible range 1-1000 ms"),
      (["score", "--hrv", "abc", "--hr", "70"], "'abc' is invalid for '--hrv <ms>'", "needs a number in ms"),
      (["run", "--board", "sim", "--speed", "fast"], "'fast' is invalid for '--speed <speed>'", "a factor such as 10"),
      (["run", "--board", "sim", "--duration", "-1"], "'-1' is invalid for '--duration <s>'", "plausible range"),
      (["analyze", "x.csv", "--window", "5"], "'5' is invalid for '--window <s>'", "plausible range 10-3600 s"),
      (
        ["render", "--category", "mild", "--time", "25:00", "--panel", "waveshare-2in13-v4", "--out", "x.png"],
        "'25:00' is invalid for '--time <hh:mm>'", "HH:MM"
      ),
    ])
  func parsedOnce(arguments: [String], names: String, reason: String) throws {
    let result = try CLIRunner.run(arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(names) && result.stderr.contains(reason), "\(result.stderr)")
  }

}
