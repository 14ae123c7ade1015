import CSQLiteCrashVFS
import Foundation
@testable import Hub
import Platform
import SQLite
import StressModel
import SyncWire
import TestSupport
import Testing

/// The hub's SQLite storage through simulated power cuts (Tests/CSQLiteCrashVFS; the device store's twin is
/// StoreTests/PowerCutTests): ingests of new rows and of newer versions, feed reads in between, and at a random
/// write, truncate or sync the power goes. After each cut the storage is opened again on the same file and must be
/// sound, hold every row it acknowledged (in that version or a newer one), and never hand out a feed sequence
/// number at or below one a reader has already seen.
@Suite("Hub SQLite storage: simulated power cuts", .serialized)
struct HubPowerCutTests {
  static let environment = ProcessInfo.processInfo.environment
  static let cuts = Int(environment["STRESSMON_POWER_CUTS"] ?? "") ?? 300

  @Test("hundreds of cuts: integrity ok, every acknowledged row kept, feed sequence numbers never go back")
  func cutsKeepAcknowledgedRows() async throws {
    let directory = try TemporaryDirectory("hub-power-cut")
    defer { directory.remove() }
    let path = directory.file("hub.sqlite")
    let seed = UInt64(Self.environment["STRESSMON_POWER_CUT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
    var random = SplitMix64(seed: seed)
    let name = "crashsim-hub-\(seed)"
    let sim = try #require(crashsim_create(name, 1), "the crash VFS could not be registered")
    var acknowledged: [String: MeasurementRecord] = [:]
    var idsByDevice: [String: [String]] = [:]
    var highestSeen: Int64 = 0
    var cutWhileOpening = 0
    var rowsMade = 0
    for round in 0..<Self.cuts {
      let context = "round \(round) (seed \(seed))"
      let storage = try SQLiteHubStorage(path: path, readers: 1, vfs: name)
      let cutEarly = round % 5 == 4
      if cutEarly { crashsim_arm(sim, Int64.random(in: 1...4, using: &random)) }
      do {
        try await storage.migrate()
      } catch {
        try #require(crashsim_crashed(sim) == 1, "\(context): migrate failed without a cut: \(error)")
      }
      if crashsim_crashed(sim) == 1 {
        cutWhileOpening += 1
        try await storage.close()
        try reboot(sim, round: round, random: &random)
        continue
      }
      crashsim_arm(sim, 0)
      try await verify(storage, acknowledged, highestSeen: highestSeen, context: context)
      crashsim_arm(sim, Int64.random(in: 1...150, using: &random))
      do {
        for _ in 0..<10_000 {
          if random.unit() < 0.25 {
            let slice = try await storage.feedPayloads(deviceId: nil, after: max(0, highestSeen - 5), limit: 20)
            highestSeen = max(highestSeen, slice.lastSequence)
            continue
          }
          let device = "hub-cut-\(random.int(0...2))"
          var batch: [MeasurementRecord] = []
          for _ in 0..<random.int(1...5) {
            let mine = idsByDevice[device] ?? []
            if random.unit() < 0.3, let id = mine.randomElement(using: &random), var row = acknowledged[id] {
              // A newer version of a row the hub holds (a clock correction, a re-scored window).
              row.modifiedAt += 1
              row.confidence = random.unit()
              batch.append(row)
            } else {
              rowsMade += 1
              batch.append(Self.record(device: device, index: rowsMade))
            }
          }
          // One version per id in a batch, as a device sends it.
          var seen = Set<String>()
          batch = batch.filter { seen.insert($0.id).inserted }
          let outcome = try await storage.upsert(deviceId: device, records: batch, receivedAt: 1, outboxPending: nil)
          #expect(outcome.foreign.isEmpty && outcome.keptNewer.isEmpty, "\(context)")
          for row in batch {
            if acknowledged.updateValue(row, forKey: row.id) == nil { idsByDevice[device, default: []].append(row.id) }
          }
        }
        Issue.record("\(context): no cut after 10000 operations")
      } catch {
        try #require(crashsim_crashed(sim) == 1, "\(context): failed without a cut: \(error)")
      }
      try await storage.close()
      try reboot(sim, round: round, random: &random)
    }
    let storage = try SQLiteHubStorage(path: path, readers: 1, vfs: name)
    try await storage.migrate()
    try await verify(storage, acknowledged, highestSeen: highestSeen, context: "after the last cut (seed \(seed))")
    try await storage.close()
    let stats = crashsim_get_stats(sim)
    #expect(stats.undone_operations > 0, "the cuts undid nothing: the simulation did not bite")
    print(
      "power cuts (hub): \(Self.cuts) cuts (seed \(seed)), \(cutWhileOpening) while opening; \(acknowledged.count) "
        + "acknowledged rows (latest versions) verified, 0 lost; feed high-water \(highestSeen) never went back; "
        + "\(stats.undone_operations) unsynced writes undone (\(stats.restored_bytes) bytes), \(stats.syncs) syncs")
  }

  @Test("a file system that cannot give WAL (no shared memory) is refused with the reason, not run without it")
  func refusesWithoutWAL() throws {
    let directory = try TemporaryDirectory("hub-no-wal")
    defer { directory.remove() }
    let name = "no-shm-\(UInt32.random(in: 0...UInt32.max))"
    _ = try #require(crashsim_create(name, 0))
    #expect {
      _ = try SQLiteHubStorage(path: directory.file("hub.sqlite"), vfs: name)
    } throws: { error in
      "\(error)".contains("refused WAL mode") && "\(error)".contains("local file system")
    }
  }

  // MARK: - Helpers

  private func reboot(_ sim: OpaquePointer, round: Int, random: inout SplitMix64) throws {
    let mode = round % 2 == 0 ? CRASHSIM_DROP_UNSYNCED : CRASHSIM_TORN_PREFIX
    try #require(crashsim_reboot(sim, Int32(mode.rawValue), random.next()) >= 0, "a file could not be restored")
  }

  /// Sound, every acknowledged row at its acknowledged version or newer, and the feed's high-water mark at or
  /// above every sequence number a reader saw (so the next row is numbered above them all).
  private func verify(
    _ storage: SQLiteHubStorage, _ acknowledged: [String: MeasurementRecord], highestSeen: Int64, context: String
  ) async throws {
    let (integrity, rows, lastSeq) = try await storage.write { connection in
      var integrity: [String] = []
      try connection.query("PRAGMA integrity_check", []) { integrity.append($0.text(0) ?? "") }
      var rows: [String: (modifiedAt: Double, seq: Int64)] = [:]
      try connection.query("SELECT id, modified_at, seq FROM measurements", []) {
        rows[$0.text(0) ?? ""] = ($0.double(1), $0.int64(2))
      }
      var lastSeq: Int64 = -1
      try connection.query("SELECT last_seq FROM feed_state WHERE id = 1", []) { lastSeq = $0.int64(0) }
      return (integrity, rows, lastSeq)
    }
    try #require(integrity == ["ok"], "\(context): \(integrity.prefix(3))")
    var lost = 0
    var older = 0
    for (id, row) in acknowledged {
      guard let stored = rows[id] else {
        lost += 1
        continue
      }
      if stored.modifiedAt < row.modifiedAt { older += 1 }
    }
    #expect(lost == 0, "\(context): \(lost) acknowledged rows lost")
    #expect(older == 0, "\(context): \(older) rows went back to an older version than acknowledged")
    #expect(lastSeq >= highestSeen, "\(context): the feed's high-water mark \(lastSeq) is below \(highestSeen), seen")
    #expect(rows.values.allSatisfy { $0.seq <= lastSeq }, "\(context): a row is numbered above the high-water mark")
  }

  /// A valid row of `device`, numbered `index` (ids unique across devices).
  static func record(device: String, index: Int) -> MeasurementRecord {
    let end = 1_767_225_600 + Double(index) * 10
    let hrv = 30 + Double(index % 40)
    let result = StressCalculator().result(hrvMs: hrv, heartRateBpm: 70, baseline: .default)
    return MeasurementRecord(
      id: UUID().uuidString.lowercased(), deviceId: device, windowStart: end - 60, windowEnd: end,
      bootId: "3f1c2a9e-77d4-4c61-9a53-0d6f1b2c8e10", monotonicEnd: 100 + Double(index) * 10, clockSynchronised: true,
      stressLevel: result.level, category: result.category, confidence: result.confidence, sdnnMs: hrv,
      rmssdMs: hrv * 0.8, heartRateBpm: 70, baselineHrvMs: 50, restingHeartRateBpm: 60, baselinePersonal: false,
      quality: .good, beats: 70, rejectedBeats: 0, modifiedAt: end + 1)
  }
}
