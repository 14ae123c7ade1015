import Foundation
import Store
import SyncWire
import TestSupport
import Testing

/// `stressmon history`, `export` and `baseline`, run as a user would (the built binary).
@Suite("stressmon history / export / baseline")
struct StoreCommandTests {
  /// A database holding the real hour (341 windows), the first 100 uploaded, one quarantined.
  func database() throws -> (StoreFixture, [MeasurementRecord]) {
    let fixture = try StoreFixture("cli")
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals())
    let store = try fixture.open()
    try store.write(session.records, ibis: session.ibis)
    try store.markUploaded(ids: session.records.prefix(100).map(\.id), at: may2024 + 4000)
    try store.quarantine(id: session.records[150].id, reason: "422 bad, \"level\"", at: may2024 + 4000)
    store.close()
    return (fixture, session.records)
  }

  @Test("history --json: every window in range, with its clock and upload state")
  func historyJSON() throws {
    let (fixture, records) = try database()
    defer { fixture.directory.remove() }
    let since = ISO8601Time.formatUTC(records[10].windowEnd, fractionDigits: 3)
    let until = ISO8601Time.formatUTC(records[20].windowEnd, fractionDigits: 3)
    let result = try CLIRunner.run(["history", "--db", fixture.path, "--since", since, "--until", until, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let json = try CLIRunner.json(result)
    let rows = try #require(json["measurements"] as? [[String: Any]])
    #expect(json["count"] as? Int == 10)
    #expect(rows.map { $0["id"] as? String } == records[10..<20].map(\.id))
    #expect(rows.allSatisfy { $0["upload_state"] as? String == "uploaded" && $0["clock_state"] as? String == "synchronised" })
  }

  @Test("history as text: one line per window and a summary naming the upload states")
  func historyText() throws {
    let (fixture, records) = try database()
    defer { fixture.directory.remove() }
    let result = try CLIRunner.run(["history", "--db", fixture.path], environment: ["TZ": "UTC"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == records.count + 1)
    #expect(lines[0].hasPrefix(ISO8601Time.formatLocal(records[0].windowEnd)))
    #expect(lines[0].contains(records[0].category!.rawValue) && lines[0].hasSuffix("uploaded"))
    #expect(lines[150].contains("refused by hub: 422 bad"))
    #expect(lines.last!.contains("100 uploaded") && lines.last!.contains("\(records.count - 101) waiting for upload"))
  }

  @Test("history --csv --limit: header plus the newest N rows, oldest first")
  func historyCSV() throws {
    let (fixture, records) = try database()
    defer { fixture.directory.remove() }
    let result = try CLIRunner.run(["history", "--db", fixture.path, "--csv", "--limit", "3"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.first.map(String.init) == MeasurementExport.csvColumns.joined(separator: ","))
    #expect(lines.dropFirst().map { String($0.prefix(36)) } == records.suffix(3).map(\.id))
  }

  @Test("Bad input: one line on stderr, exit 64, nothing on stdout", arguments: [
    ["history", "--since", "yesterday"],
    ["history", "--since", "2024-05-02", "--until", "2024-05-01"],
    ["history", "--json", "--csv"],
    ["history", "--limit", "0"],
    ["export", "--out", "data.txt"],
    ["baseline", "--show", "--reset"],
  ])
  func badInput(arguments: [String]) throws {
    let (fixture, _) = try database()
    defer { fixture.directory.remove() }
    let result = try CLIRunner.run(arguments + ["--db", fixture.path], workingDirectory: fixture.directory.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test("A missing database: exit 66, says how to fix it, and is not created")
  func missingDatabase() throws {
    let directory = try TemporaryDirectory("cli")
    defer { directory.remove() }
    let path = directory.file("none.db")
    for command in [["history"], ["baseline"], ["baseline", "--reset"], ["export", "--out", directory.file("x.csv")]] {
      let result = try CLIRunner.run(command + ["--db", path])
      #expect(result.status == 66)
      #expect(result.stderr.contains(path) && result.stderr.contains("--db"))
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test("A damaged or newer database: exit 65 with the reason, file untouched")
  func badDatabase() throws {
    let (fixture, _) = try database()
    defer { fixture.directory.remove() }
    let raw = try MeasurementStore(path: fixture.path)
    raw.close()
    // Newer schema: bump user_version through the sqlite3 CLI-free route (a second migration list).
    let newer = SchemaMigration(version: StoreSchema.latestVersion + 1, summary: "future", statements: ["CREATE TABLE f (x)"])
    try MeasurementStore(path: fixture.path, options: MeasurementStore.Options(migrations: StoreSchema.migrations + [newer])).close()
    let result = try CLIRunner.run(["history", "--db", fixture.path])
    #expect(result.status == 65)
    #expect(result.stderr.contains("newer stressmon"))

    let junk = try TemporaryDirectory("cli")
    defer { junk.remove() }
    let garbage = try junk.write("bad.db", String(repeating: "not a database ", count: 500))
    let damaged = try CLIRunner.run(["history", "--db", garbage])
    #expect(damaged.status == 65)
    #expect(damaged.stderr.contains("damaged"))
    #expect(try String(contentsOfFile: garbage, encoding: .utf8).hasPrefix("not a database"))
  }

  @Test("export --out FILE.csv and FILE.json: complete files, never overwritten without --force")
  func export() throws {
    let (fixture, records) = try database()
    defer { fixture.directory.remove() }
    let csv = fixture.directory.file("all.csv")
    var result = try CLIRunner.run(["export", "--db", fixture.path, "--out", csv])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("Exported \(records.count) measurements"))
    let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == records.count + 1)
    #expect(lines[151].hasSuffix("quarantined,\"422 bad, \"\"level\"\"\""))

    let json = fixture.directory.file("all.json")
    result = try CLIRunner.run(["export", "--db", fixture.path, "--out", json, "--json"])
    #expect(try CLIRunner.json(result)["count"] as? Int == records.count)
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
    let rows = try #require(document?["measurements"] as? [[String: Any]])
    let decoded = try rows.map { try JSONDecoder().decode(MeasurementRecord.self, from: JSONSerialization.data(withJSONObject: $0)) }
    #expect(decoded == records)

    result = try CLIRunner.run(["export", "--db", fixture.path, "--out", csv])
    #expect(result.status == 73)
    #expect(result.stderr.contains("--force"))
    result = try CLIRunner.run(["export", "--db", fixture.path, "--out", csv, "--force", "--since", "2030-01-01"])
    #expect(result.status == 0)
    #expect(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").count == 1)
    result = try CLIRunner.run(["export", "--db", fixture.path, "--out", fixture.directory.file("no/such/dir/x.csv")])
    #expect(result.status == 73)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.contains("partial") }
    #expect(leftovers.isEmpty)
  }

  @Test("baseline: learning, then personal, then reset, in text and JSON")
  func baseline() throws {
    let (fixture, records) = try database()
    defer { fixture.directory.remove() }
    // The stored windows are from May 2024; "now" for the command is today, so they are outside the 30 days:
    // the command reports learning with 0 of 30.
    var result = try CLIRunner.run(["baseline", "--db", fixture.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("Learning") && result.stdout.contains("0 of 30"))

    let store = try fixture.open()
    let computed = try store.recomputeBaseline(now: records.last!.windowEnd)
    store.close()
    result = try CLIRunner.run(["baseline", "--db", fixture.path, "--json"])
    var json = try CLIRunner.json(result)
    #expect(json["personal"] as? Bool == true)
    #expect(abs((json["hrv_ms"] as? Double ?? 0) - computed.hrvMs) < 1e-9)
    #expect((json["history"] as? [Any])?.count == 1)

    result = try CLIRunner.run(["baseline", "--db", fixture.path, "--reset"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("Baseline reset"))
    result = try CLIRunner.run(["baseline", "--db", fixture.path, "--json"])
    json = try CLIRunner.json(result)
    #expect(json["personal"] as? Bool == false)
    #expect((json["history"] as? [[String: Any]])?.first?["event"] as? String == "reset")
  }
}
