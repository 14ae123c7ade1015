import Foundation
import Store
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The store-reading commands against one real database: history, export, and report from the store and from
/// the export agree on the same rows.
@Suite("history, export and report read the same store")
struct StoreCommandsIntegrationTests {
  @Test("report --db draws the day's stored windows; report --from-json of an export gives the same summary")
  func reportFromStoreAndFromExport() throws {
    // Given a store holding 600 windows (10 h from 2026-01-01 00:00 UTC) built from a real RR series
    let dir = try TemporaryDirectory("store-cli")
    defer { dir.remove() }
    let db = dir.file("stressmon.db")
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 600)
    do {
      let store = try MeasurementStore(path: db)
      let last = rows.map(\.windowEnd).max()!
      try store.write(rows, clock: ClockReading(wall: last, monotonic: last, bootId: rows[0].bootId, synchronised: true))
      store.close()
    }
    let utc = ["TZ": "UTC"]

    // When the day is drawn from the store, and from an export of it
    let fromStore = try CLIRunner.run(
      ["report", "--db", db, "--day", "2026-01-01", "--out", dir.file("day.svg"), "--json"], environment: utc)
    #expect(fromStore.status == 0, "\(fromStore.stderr)")
    let export = try CLIRunner.run(["export", "--db", db, "--out", dir.file("all.json")], environment: utc)
    #expect(export.status == 0, "\(export.stderr)")
    let fromExport = try CLIRunner.run(
      ["report", "--from-json", dir.file("all.json"), "--day", "2026-01-01", "--out", dir.file("day2.svg"), "--json"],
      environment: utc)
    #expect(fromExport.status == 0, "\(fromExport.stderr)")

    // Then both summaries count every stored window, and agree
    let a = try summary(fromStore)
    let b = try summary(fromExport)
    #expect(a["windows"] as? Int == rows.count)
    #expect(NSDictionary(dictionary: a).isEqual(to: b))
    let expectedMean = rows.compactMap(\.sdnnMs).reduce(0, +) / Double(rows.compactMap(\.sdnnMs).count)
    #expect(abs((a["mean_hrv_ms"] as? Double ?? 0) - expectedMean) < 0.01)

    // And history lists the same rows
    let history = try CLIRunner.run(["history", "--db", db, "--json"], environment: utc)
    #expect(try CLIRunner.json(history)["count"] as? Int == rows.count)
  }

  @Test("report on a missing store says so and exits 66 without creating it")
  func missingStore() throws {
    let dir = try TemporaryDirectory("store-cli-missing")
    defer { dir.remove() }
    let result = try CLIRunner.run(["report", "--db", dir.file("none.db"), "--out", dir.file("x.svg")])
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.contains("none.db"))
    #expect(!FileManager.default.fileExists(atPath: dir.file("none.db")))
  }

  private func summary(_ result: CLIRunner.Result) throws -> [String: Any] {
    try #require(try CLIRunner.json(result)["summary"] as? [String: Any])
  }
}
