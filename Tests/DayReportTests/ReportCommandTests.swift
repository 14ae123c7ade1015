import DayReport
import Foundation
import SyncWire
import TestSupport
import Testing

@Suite("stressmon report")
struct ReportCommandTests {
  /// The fixture day as `stressmon export --out x.json` writes it: a JSON array with snake_case keys.
  static func exportFile(in directory: TemporaryDirectory) throws -> (path: String, records: [MeasurementRecord]) {
    let records = try DayFixture.records()
    let path = directory.file("export.json")
    try JSONEncoder().encode(records).write(to: URL(fileURLWithPath: path))
    return (path, records)
  }

  @Test("--from-json draws the same PNG as the library and prints the day's numbers with --json")
  func pngFromExport() throws {
    let directory = try TemporaryDirectory("report")
    defer { directory.remove() }
    let (export, records) = try Self.exportFile(in: directory)
    let out = directory.file("day.png")
    // No --day: the day of the file's last window
    let result = try CLIRunner.run(["report", "--from-json", export, "--out", out, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    let report = DayReport(records: records, day: DayFixture.day)
    #expect(written == report.png())
    let json = try CLIRunner.json(result)
    #expect(json["format"] as? String == "png" && json["bytes"] as? Int == written.count)
    let summary = try #require(json["summary"] as? [String: Any])
    #expect(summary["day"] as? String == "2024-03-12")
    #expect(summary["windows"] as? Int == records.count)
    let categories = try #require(summary["categories"] as? [String: [String: Any]])
    let mild = records.filter { $0.category == .mild }.count
    #expect(categories["mild"]?["windows"] as? Int == mild)
    #expect(abs((categories["mild"]?["minutes"] as? Double ?? -1) - Double(mild) / 6) < 1e-6)
    let unscored = try #require(summary["uncategorised"] as? [String: [String: Any]])
    #expect(unscored["poor_signal"]?["windows"] as? Int == 18)
    let gaps = try #require(summary["gaps"] as? [[String: Any]])
    #expect(gaps.count == 4 && gaps.first?["from"] as? String == "08:55")
    #expect(abs((summary["mean_hr_bpm"] as? Double ?? -1) - report.summary.meanHeartRateBpm!) < 1e-9)
    try Self.keepForDocs(out, as: "report-example.png")
    try Self.keepForDocs(export, as: "report-example-export.json")
  }

  @Test("An SVG with --day, and a sentence on stdout without --json")
  func svgFromExport() throws {
    let directory = try TemporaryDirectory("report")
    defer { directory.remove() }
    let (export, records) = try Self.exportFile(in: directory)
    let out = directory.file("day.svg")
    let result = try CLIRunner.run(["report", "--from-json", export, "--day", "2024-03-12", "--out", out])
    #expect(result.status == 0, "\(result.stderr)")
    let svg = try String(contentsOfFile: out, encoding: .utf8)
    #expect(svg == DayReport(records: records, day: DayFixture.day).svg())
    #expect(result.stdout.hasPrefix("Wrote \(out) (1100×"))
    #expect(result.stdout.contains("Poor signal 3 min"))
    // Another day of the same file: drawn, empty
    let other = try CLIRunner.run(["report", "--from-json", export, "--day", "2024-03-13", "--out", out, "--json"])
    #expect(other.status == 0)
    #expect((try CLIRunner.json(other)["summary"] as? [String: Any])?["windows"] as? Int == 0)
    try Self.keepForDocs(out, as: "report-example.svg", from: ["report", "--from-json", export, "--out"])
  }

  @Test("The day follows the local time zone: a daylight-saving day in Berlin is 23 hours from 23:00 UTC")
  func timeZone() throws {
    let directory = try TemporaryDirectory("report")
    defer { directory.remove() }
    let (export, _) = try Self.exportFile(in: directory)
    let result = try CLIRunner.run(
      ["report", "--from-json", export, "--day", "2024-03-31", "--out", directory.file("dst.svg"), "--json"],
      environment: ["TZ": "Europe/Berlin"])
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(try CLIRunner.json(result)["summary"] as? [String: Any])
    let midnight = 1_711_839_600.0  // 2024-03-30T23:00:00Z
    #expect(summary["day_start"] as? Double == midnight)
    #expect(summary["day_end"] as? Double == midnight + 23 * 3600)
  }

  @Test("Bad input: one line on stderr naming the problem, and the sysexits code", arguments: [
    (["--day", "12/03/2024", "--out", "x.png"], 64, "--day needs a date as YYYY-MM-DD"),
    (["--day", "2023-02-29", "--out", "x.png"], 64, "is not a day of the calendar: February 2023 has 28 days"),
    (["--out", "day.jpg"], 64, "--out must end in .png or .svg"),
    (["--from-json", "{export}", "--db", "x.db", "--out", "x.svg"], 64, "not both"),
    (["--from-json", "/nonexistent/export.json", "--out", "x.svg"], 66, "no such file"),
    (["--from-json", "{malformed}", "--out", "x.svg"], 65, "not a JSON array of measurements"),
    (["--from-json", "{export}", "--out", "/nonexistent/dir/day.png"], 73, "cannot write the report"),
  ])
  func badInput(arguments: [String], code: Int32, message: String) throws {
    let directory = try TemporaryDirectory("report")
    defer { directory.remove() }
    let (export, _) = try Self.exportFile(in: directory)
    let malformed = try directory.write("bad.json", #"[{"id": "a", "window_end": "soon"}]"#)
    let resolved = arguments.map {
      $0 == "{export}" ? export : $0 == "{malformed}" ? malformed : $0.hasPrefix("x.") ? directory.file($0) : $0
    }
    let result = try CLIRunner.run(["report"] + resolved)
    #expect(result.status == code, "\(result.stderr)")
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stdout.isEmpty)
  }

  // MARK: - Docs

  /// With STRESSMON_DOCS_IMG=<dir>, the example pictures of docs/report.md (and the export they come from) are
  /// copied there.
  static func keepForDocs(_ file: String, as name: String, from arguments: [String]? = nil) throws {
    guard let directory = ProcessInfo.processInfo.environment["STRESSMON_DOCS_IMG"] else { return }
    if let arguments {
      _ = try CLIRunner.run(arguments + [directory + "/" + name])
    } else {
      try? FileManager.default.removeItem(atPath: directory + "/" + name)
      try FileManager.default.copyItem(atPath: file, toPath: directory + "/" + name)
    }
  }
}
