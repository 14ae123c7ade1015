import Foundation
import TestSupport
import Testing

@Suite("record on the simulated board, then analyze the file")
struct RecordAnalyzeTests {
  @Test("The beats analyze finds in a sim-board recording are the bundled recording's beats")
  func recordedBeatsMatchTheSource() throws {
    // Given 60 s recorded from the emulated MAX30102, which the sim board feeds with demo/bsn_bvp_rest.csv
    let dir = try TemporaryDirectory("record-analyze")
    defer { dir.remove() }
    let out = dir.file("capture.csv")
    let record = try CLIRunner.run(
      ["record", "--board", "sim", "--out", out, "--duration", "60", "--speed", "max", "--json"])
    #expect(record.status == 0, "\(record.stderr)")

    // When both the capture (raw 18-bit intensity at 100 Hz, pulses down) and the source (BVP at 1000 Hz) are analysed
    let captured = try beatTimes(of: out)
    let source = try beatTimes(of: SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv").filter { $0 < 60 }

    // Then every source beat has a captured beat within 40 ms after a constant lag, and no extra beats appear
    #expect(captured.count >= 60)
    let lag = median(zip(source, captured).map { $0.1 - $0.0 })
    #expect(abs(lag) < 0.1)
    let matched = source.filter { s in captured.contains { abs($0 - lag - s) < 0.04 } }.count
    #expect(Double(matched) / Double(source.count) > 0.97, "matched \(matched) of \(source.count)")
    #expect(abs(captured.count - source.count) <= 1)
  }

  private func beatTimes(of path: String) throws -> [Double] {
    let result = try CLIRunner.run(["analyze", path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    return try CLIRunner.json(result)["beat_times_s"] as? [Double] ?? []
  }

  private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }
}
