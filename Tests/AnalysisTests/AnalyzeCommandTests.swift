import Foundation
import TestSupport
import Testing

@Suite("stressmon analyze")
struct AnalyzeCommandTests {
  @Test("--json prints every documented key for a real recording")
  func jsonKeys() throws {
    let result = try CLIRunner.run(["analyze", try SharedData.path("pyphysio_medical.csv"), "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let json = try CLIRunner.json(result)
    for key in [
      "rate_hz", "samples", "beats", "beat_times_s", "ibi_ms", "hrv", "windows", "recovered_beats", "artefact_beats",
    ] {
      #expect(json[key] != nil, "missing \(key)")
    }
    #expect(json["rate_hz"] as? Double == 2048)
    #expect(json["samples"] as? Int == 245_760)
    #expect(json["polarity_source"] as? String == "sidecar")
    let beats = try #require(json["beats"] as? [Int])
    let times = try #require(json["beat_times_s"] as? [Double])
    #expect(beats.count == times.count && beats.count > 120)
    #expect(zip(beats, times).allSatisfy { abs(Double($0) / 2048 - $1) <= 0.5 / 2048 + 1e-5 })
    let hrv = try #require(json["hrv"] as? [String: Any])
    for key in ["sdnn_ms", "rmssd_ms", "pnn50", "mean_hr_bpm", "beats", "rejected"] { #expect(hrv[key] != nil, "hrv.\(key)") }
    let windows = try #require(json["windows"] as? [[String: Any]])
    #expect(windows.count == 7)
    for key in ["start_s", "end_s", "sdnn_ms", "rmssd_ms", "heart_rate_bpm", "stress_level", "category", "confidence", "quality"] {
      #expect(windows.allSatisfy { $0.keys.contains(key) }, "windows[].\(key)")
    }
  }

  @Test("--window and --step lay the windows out; flags override the sidecar's rate and polarity")
  func flags() throws {
    let path = try SharedData.path("heartpy_data3.csv")
    let result = try CLIRunner.run(["analyze", path, "--window", "120", "--step", "60", "--json"])
    let windows = try #require(try CLIRunner.json(result)["windows"] as? [[String: Any]])
    #expect(windows.first?["end_s"] as? Double == 120)
    #expect(windows.count == Int((681.9 - 120) / 60) + 1)
    let inverted = try CLIRunner.json(try CLIRunner.run(["analyze", path, "--invert", "--rate", "100", "--json"]))
    #expect(inverted["polarity"] as? String == "inverted")
    #expect(inverted["polarity_source"] as? String == "flag")
    #expect(inverted["rate_hz"] as? Double == 100)
  }

  @Test("Without a sidecar the rate must be given, and the polarity is detected")
  func noSidecar() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let copy = dir.file("finger.csv")
    try FileManager.default.copyItem(atPath: try SharedData.path("bsn_hspo2_ch10.csv"), toPath: copy)
    let missing = try CLIRunner.run(["analyze", copy])
    #expect(missing.status == 65)
    #expect(missing.stderr.contains("--rate"))
    let json = try CLIRunner.json(try CLIRunner.run(["analyze", copy, "--rate", "1000", "--json"]))
    #expect(json["polarity"] as? String == "inverted")
    #expect(json["polarity_source"] as? String == "detected")
  }

  @Test("A sidecar that does not parse is a warning when --rate and the polarity flags give what it would")
  func brokenSidecar() throws {
    // Given a raw-intensity recording whose sidecar is not JSON
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let copy = dir.file("finger.csv")
    try FileManager.default.copyItem(atPath: try SharedData.path("bsn_hspo2_ch10.csv"), toPath: copy)
    _ = try dir.write("finger.json", "{\"fs\": 1000,")
    // When the flags give the rate and the polarity, it is analysed, with one warning line on stderr
    let flagged = try CLIRunner.run(["analyze", copy, "--rate", "1000", "--invert", "--json"])
    #expect(flagged.status == 0, "\(flagged.stderr)")
    #expect(flagged.stderr.split(separator: "\n").count == 1, "\(flagged.stderr)")
    #expect(flagged.stderr.contains("warning") && flagged.stderr.contains("finger.json"), "\(flagged.stderr)")
    let json = try CLIRunner.json(flagged)
    #expect(json["polarity_source"] as? String == "flag")
    #expect((json["beats"] as? [Int])?.count ?? 0 > 40)
    // ...but without the polarity (or the rate) the sidecar was needed: bad data, saying what to give
    for flags in [["--rate", "1000"], ["--invert"], []] {
      let result = try CLIRunner.run(["analyze", copy] + flags)
      #expect(result.status == 65, "\(flags): \(result.stderr)")
      #expect(result.stderr.contains("--polarity"), "\(flags): \(result.stderr)")
    }
  }

  @Test("--json carries window stress levels unrounded (the category is computed from the full value)")
  func windowLevelsFullPrecision() throws {
    let json = try CLIRunner.json(try CLIRunner.run(["analyze", try SharedData.path("heartpy_data3.csv"), "--json"]))
    let windows = try #require(json["windows"] as? [[String: Any]])
    let levels = windows.compactMap { $0["stress_level"] as? Double }
    #expect(levels.count >= 20)
    // Rounded to 0.1, every level times ten would be a whole number.
    #expect(levels.contains { abs($0 * 10 - ($0 * 10).rounded()) > 1e-6 }, "\(levels.prefix(5))")
  }

  @Test("The summary without --json names the beats, the HRV and each window")
  func summary() throws {
    let result = try CLIRunner.run(["analyze", try SharedData.path("bsn_fspo2_chn1.csv")])
    #expect(result.status == 0)
    #expect(result.stdout.contains("Beats:"))
    #expect(result.stdout.contains("SDNN"))
    #expect(result.stdout.contains("Windows (60 s, every 10 s): 4"))
    #expect(result.stderr.isEmpty)  // no progress bar when stderr is not a terminal
  }

  @Test("Bad input: one line on stderr, exit 66 for a missing file and 65 for bad data", arguments: [
    ("", [String](), 65, "no samples"),
    ("ppg\n1\n2\nabc\n", ["--rate", "100"], 65, ":4: 'abc'"),
    ("time,value\n1,2\n", ["--rate", "100"], 65, "none of the columns"),
    ("ppg\n1\n2\n", ["--rate", "5"], 65, "5.0 Hz"),
    ("ppg\n1\n2\n", ["--rate", "fast"], 64, "--rate"),
    ("ppg\n1\n2\n", [], 65, "unknown sample rate"),
    ("ppg\n1\n2\n", ["--rate", "100", "--window", "-3"], 64, "--window"),
    ("ppg\n1\n2\n", ["--rate", "100", "--polarity", "sideways"], 64, "--polarity"),
  ])
  func badInput(text: String, flags: [String], code: Int32, message: String) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("x.csv", text)
    let result = try CLIRunner.run(["analyze", path] + flags)
    #expect(result.status == code, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  @Test("A missing file is 'no input' (66)")
  func missingFile() throws {
    let result = try CLIRunner.run(["analyze", "/nonexistent/recording.csv", "--rate", "100"])
    #expect(result.status == 66)
    #expect(result.stderr.contains("/nonexistent/recording.csv"))
  }

  @Test("A sidecar with an out-of-range rate is bad data (65), and a tiny file gives an honest empty result")
  func sidecarRateAndTinyFile() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = try dir.write("y.csv", "ppg\n1\n2\n3\n")
    _ = try dir.write("y.json", "{\"fs\": 1000000}")
    let result = try CLIRunner.run(["analyze", path])
    #expect(result.status == 65)
    _ = try dir.write("y.json", "{\"fs\": 100}")
    let json = try CLIRunner.json(try CLIRunner.run(["analyze", path, "--json", "--polarity", "normal"]))
    #expect((json["beats"] as? [Int])?.isEmpty == true)
    #expect((json["hrv"] as? [String: Any])?["sdnn_ms"] is NSNull)
  }
}
