import Foundation
@testable import Hub
import SQLite
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

@Suite("Hub SQLite storage")
struct SQLiteHubStorageTests {
  static func pragma(_ storage: SQLiteHubStorage, _ name: String) async throws -> String {
    try await storage.write { connection in
      var value = ""
      try connection.query("PRAGMA \(name)", []) { value = $0.text(0) ?? "" }
      return value
    }
  }

  @Test("acknowledged means on disk: WAL with synchronous=FULL, files readable by the owner only")
  func durableAndPrivate() async throws {
    let directory = try TemporaryDirectory("hub-sqlite")
    defer { directory.remove() }
    let path = directory.file("hub.sqlite")
    let storage = try SQLiteHubStorage(path: path)
    try await storage.migrate()
    _ = try await storage.upsert(
      deviceId: "d", records: try MeasurementFixtures.records(device: "d", count: 5), receivedAt: 1, outboxPending: nil)
    #expect(try await Self.pragma(storage, "synchronous") == "2", "2 is FULL")
    #expect(try await Self.pragma(storage, "journal_mode") == "wal")
    for suffix in ["", "-wal", "-shm"] {
      let mode = (try FileManager.default.attributesOfItem(atPath: path + suffix)[.posixPermissions] as? NSNumber)?.intValue
      #expect(mode == 0o600, "hub.sqlite\(suffix)")
    }
    try await storage.close()
  }

  @Test("a reader is answered while an ingest transaction holds the writer")
  func readsDoNotWaitForTheWriter() async throws {
    let directory = try TemporaryDirectory("hub-sqlite")
    defer { directory.remove() }
    let storage = try SQLiteHubStorage(path: directory.file("hub.sqlite"))
    try await storage.migrate()
    let rows = try MeasurementFixtures.records(device: "d", count: 50)
    _ = try await storage.upsert(deviceId: "d", records: rows, receivedAt: 1, outboxPending: nil)
    // Given a write transaction that stays open until the test lets it go (or 20 s pass)
    let release = DispatchSemaphore(value: 0)
    let writer = Task {
      try await storage.write { connection -> Bool in
        try connection.transaction {
          try connection.query("UPDATE feed_state SET last_seq = last_seq WHERE id = 1", [])
          return release.wait(timeout: .now() + 20) == .success
        }
      }
    }
    try await Task.sleep(for: .milliseconds(100))
    // When a reader pages the feed, it gets its rows while that transaction is open
    let page = try await storage.feed(deviceId: "d", after: 0, limit: 100)
    release.signal()
    #expect(page.rows == rows)
    #expect(try await writer.value, "the read finished while the writer still held its transaction")
    try await storage.close()
  }

  @Test("a version-1 hub file is migrated: tokens become device tokens, devices and the feed high-water mark filled")
  func migratesVersion1() async throws {
    let directory = try TemporaryDirectory("hub-sqlite")
    defer { directory.remove() }
    let path = directory.file("hub.sqlite")
    let token = HubTokens.generate()
    let rows = try MeasurementFixtures.records(device: "old-desk", count: 3)
    do {
      let v1 = try SQLiteConnection(path: path, readOnly: false, create: true, busyTimeoutMs: 1000)
      try v1.execute(
        """
        CREATE TABLE measurements (id TEXT PRIMARY KEY, device_id TEXT NOT NULL, window_end REAL NOT NULL,
          modified_at REAL NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL);
        CREATE UNIQUE INDEX measurements_seq ON measurements (seq);
        CREATE TABLE tokens (token_hash TEXT PRIMARY KEY, device_id TEXT NOT NULL, created_at REAL NOT NULL);
        PRAGMA user_version = 1;
        """)
      try v1.query("INSERT INTO tokens VALUES (?, 'old-desk', 1767225600)", [.text(HubTokens.hash(token))])
      for (index, (row, payload)) in zip(rows, try StoredPayload.encode(rows)).enumerated() {
        try v1.query(
          "INSERT INTO measurements VALUES (?, 'old-desk', ?, ?, ?, ?)",
          [.text(row.id), .real(row.windowEnd), .real(row.modifiedAt), .integer(Int64(40 + index)), .text(payload)])
      }
    }
    let storage = try SQLiteHubStorage(path: path)
    try await storage.migrate()
    try await storage.migrate()  // idempotent
    #expect(try await storage.credential(forTokenHash: HubTokens.hash(token))?.kind == .device)
    #expect(try await storage.devices(notAfter: 2e9).map(\.deviceId) == ["old-desk"])
    #expect(try await Self.pragma(storage, "user_version") == "3")
    // Version 3 keeps each device's newest window on its row: filled from the old rows by the migration
    let states = try await storage.deviceStates(limit: 10)
    let newest = rows.max { $0.windowEnd < $1.windowEnd }!
    #expect(states.states.map(\.deviceId) == ["old-desk"])
    #expect(states.states.first?.latestWindowEnd == newest.windowEnd)
    #expect(states.states.first?.latestLevel == newest.stressLevel && states.states.first?.latestHrvMs == newest.sdnnMs)
    var more = try MeasurementFixtures.records(device: "old-desk", count: 4)[3]
    more.modifiedAt += 1
    _ = try await storage.upsert(deviceId: "old-desk", records: [more], receivedAt: more.windowEnd + 5, outboxPending: 0)
    #expect(try await storage.feed(deviceId: nil, after: 42, limit: 10).lastSequence == 43)
    // And every upload refreshes it
    #expect(try await storage.deviceStates(limit: 10).states.first?.latestWindowEnd == more.windowEnd)
    try await storage.close()
  }
}
