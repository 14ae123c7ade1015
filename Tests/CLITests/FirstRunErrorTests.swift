import Foundation
import Store
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// What a newcomer meets first: a rate that contradicts the sidecar, a recording shorter than a window, a directory
/// given as the file, and counts of one. Each error is one line on stderr with the advice and the sysexits code.
@Suite("First-run errors of stressmon")
struct FirstRunErrorTests {
  @Test("--rate that contradicts the sidecar's fs is refused (64), naming both rates and the fix")
  func rateContradictsSidecar() throws {
    let dir = try TemporaryDirectory("first-run-rate")
    defer { dir.remove() }
    let csv = try Self.pulseRecording(in: dir, name: "finger", seconds: 30, rateHz: 100)
    let refused = try CLIRunner.run(["analyze", csv, "--rate", "10"])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(refused.stdout.isEmpty)
    #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    for part in ["--rate 10 Hz", "finger.json", "100 Hz", "leave out --rate"] {
      #expect(refused.stderr.contains(part), "\(part): \(refused.stderr)")
    }
    // The same rate as the sidecar's is not a contradiction.
    let agreeing = try CLIRunner.run(["analyze", csv, "--rate", "100", "--window", "30", "--json"])
    #expect(agreeing.status == 0, "\(agreeing.stderr)")
    #expect(try CLIRunner.json(agreeing)["rate_hz"] as? Double == 100)
  }

  @Test("A recording shorter than a window says which --window fits, and that --window gives windows")
  func shortRecording() throws {
    let dir = try TemporaryDirectory("first-run-short")
    defer { dir.remove() }
    let csv = try Self.pulseRecording(in: dir, name: "short", seconds: 30, rateHz: 100)
    let summary = try CLIRunner.run(["analyze", csv])
    #expect(summary.status == 0, "\(summary.stderr)")
    #expect(summary.stdout.contains("30.0 s long, shorter than one 60 s window: give --window 30"), "\(summary.stdout)")
    // With --json the document is unchanged and the hint is one warning line on stderr.
    let json = try CLIRunner.run(["analyze", csv, "--json"])
    #expect(json.status == 0)
    #expect((try CLIRunner.json(json)["windows"] as? [Any])?.isEmpty == true)
    #expect(json.stderr.split(separator: "\n").count == 1 && json.stderr.contains("warning: "), "\(json.stderr)")
    #expect(json.stderr.contains("--window 30"), "\(json.stderr)")
    // Following the advice gives a window, and no hint.
    let followed = try CLIRunner.run(["analyze", csv, "--window", "30", "--json"])
    #expect(followed.status == 0, "\(followed.stderr)")
    #expect((try CLIRunner.json(followed)["windows"] as? [Any])?.count == 1)
    #expect(followed.stderr.isEmpty, "\(followed.stderr)")
  }

  @Test("A directory given as the recording says it is a directory (66), not to check permissions")
  func directoryAsRecording() throws {
    let dir = try TemporaryDirectory("first-run-dir")
    defer { dir.remove() }
    let result = try CLIRunner.run(["analyze", dir.path, "--rate", "100"])
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("is a directory"), "\(result.stderr)")
    #expect(!result.stderr.contains("permission"), "\(result.stderr)")
  }

  @Test("One stored window is '1 window' and '1 measurement', never '1 windows'")
  func countsOfOne() throws {
    let dir = try TemporaryDirectory("first-run-one")
    defer { dir.remove() }
    let db = dir.file("stressmon.db")
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 1)
    do {
      let store = try MeasurementStore(path: db)
      let end = rows[0].windowEnd
      try store.write(rows, clock: ClockReading(wall: end, monotonic: end, bootId: rows[0].bootId, synchronised: true))
      store.close()
    }
    let export = try CLIRunner.run(["export", "--db", db, "--out", dir.file("all.csv")])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(export.stdout.contains("Exported 1 measurement "), "\(export.stdout)")
    let history = try CLIRunner.run(["history", "--db", db])
    #expect(history.status == 0, "\(history.stderr)")
    let text = history.stdout + history.stderr
    #expect(text.contains("1 window "), "\(text)")
    #expect(!text.contains("1 windows") && !text.contains("1 measurements"), "\(text)")
  }

  /// A pulse-like recording (a narrow bump per beat on a baseline, intervals swinging ±40 ms around 800 ms) with
  /// its sidecar giving the rate and the polarity; the path of the CSV.
  static func pulseRecording(in dir: TemporaryDirectory, name: String, seconds: Int, rateHz: Int) throws -> String {
    var beats: [Double] = []
    var t = 0.3
    while t < Double(seconds) + 1 {
      beats.append(t)
      t += 0.8 + 0.04 * sin(2 * Double.pi * t / 4)
    }
    var text = "ppg\n"
    for i in 0..<(seconds * rateHz) {
      let time = Double(i) / Double(rateHz)
      let pulse = beats.reduce(0.0) { sum, beat in
        let d = (time - beat) / 0.09
        return abs(d) < 6 ? sum + exp(-d * d) : sum
      }
      text += "\(20_000 + Int(pulse * 2_000))\n"
    }
    _ = try dir.write(name + ".json", "{\"fs\": \(rateHz), \"polarity\": \"normal\"}")
    return try dir.write(name + ".csv", text)
  }
}
