import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLite
import SyncWire

/// The default hub storage: one SQLite file in WAL mode, through the system libsqlite3 and the `SQLite` wrapper the
/// device's store uses too (one wrapper, no second amalgamation to compile).
///
/// Durability: `synchronous=FULL` and one transaction per batch, so a batch the hub has acknowledged survives a
/// power cut (the device deletes its copy on the acknowledgement and never resends it).
///
/// Concurrency: one writer connection on a thread of its own (SQLite has one writer at a time anyway, and a
/// writer waiting for an fsync must not hold a thread readers need), and a few reader connections on their own
/// threads, which WAL lets read while the writer commits. So a feed reader never waits for an ingest, and no
/// call blocks NIO's event loops or the cooperative pool.
public final class SQLiteHubStorage: HubStorage, @unchecked Sendable {
  public let kind = "sqlite"
  public let path: String

  /// The writer connection: used only on `writerPool`'s one thread, under `writeLock` (belt and braces).
  private let writer: SQLiteConnection
  private let writeLock = NIOLock()
  private let writerPool: NIOThreadPool
  /// Idle reader connections, one per `readerPool` thread, so a running job always finds one. Guarded by `readLock`.
  private var idleReaders: [SQLiteConnection]
  private let readLock = NIOLock()
  private let readerPool: NIOThreadPool

  // MARK: - Initialization

  /// Opens (or, with `create`, creates, mode 0600: the file holds health data) the database at `path`, in WAL mode:
  /// a file system that cannot give WAL (no shared memory, e.g. some network mounts) is refused, since readers would
  /// then block the writer and an acknowledged batch would no longer be one synced append. `vfs` is a test hook (the
  /// power-cut simulator).
  public init(path: String, readers: Int = 2, create: Bool = true, vfs: String? = nil) throws {
    self.path = path
    if create {
      try Self.createPrivately(path)
    } else if access(path, F_OK) != 0 {
      throw HubStorageError(
        "no hub database at \(path); check --db (the hub creates it with 'stressmon-hub serve' or 'token create')",
        missing: true)
    }
    let readerCount = max(1, readers)
    do {
      writer = try Self.open(path, create: create, vfs: vfs)
      let mode = try writer.scalarText("PRAGMA journal_mode=WAL")
      guard mode?.lowercased() == "wal" else {
        writer.close()
        throw HubStorageError(
          "SQLite refused WAL mode for \(path) (journal mode '\(mode ?? "none")'): put the hub database on a local "
            + "file system")
      }
      try writer.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
      idleReaders = try (0..<readerCount).map { _ in
        let connection = try Self.open(path, create: false, vfs: vfs)
        try connection.execute("PRAGMA query_only=1;")
        return connection
      }
    } catch let error as SQLiteError {
      throw HubStorageError("cannot open the hub database \(path): \(error.message); check the path and permissions")
    }
    writerPool = NIOThreadPool(numberOfThreads: 1)
    readerPool = NIOThreadPool(numberOfThreads: readerCount)
    writerPool.start()
    readerPool.start()
  }

  deinit {
    writerPool.shutdownGracefully { _ in }
    readerPool.shutdownGracefully { _ in }
  }

  // MARK: - HubStorage: measurements

  public func migrate() async throws {
    try await write { connection in try SQLiteHubSchema.migrate(connection) }
  }

  public func upsert(
    deviceId: String, records: [MeasurementRecord], receivedAt: Double, outboxPending: Int?, outboxQuarantined: Int?
  ) async throws -> UpsertOutcome {
    // Encoding happens here, on the caller's thread: the writer thread does only SQLite work.
    let payloads = try StoredPayload.encode(records)
    return try await write { connection in
      try connection.transaction {
        var outcome = UpsertOutcome()
        var sequence: Int64 = 0
        try connection.query("SELECT last_seq FROM feed_state WHERE id = 1", []) { sequence = $0.int64(0) }
        for (record, payload) in zip(records, payloads) {
          var existing: (owner: String, modifiedAt: Double, payload: String)?
          try connection.query(
            "SELECT device_id, modified_at, payload FROM measurements WHERE id = ?", [.text(record.id)]
          ) { existing = ($0.text(0) ?? "", $0.double(1), $0.text(2) ?? "") }
          if let existing {
            if existing.owner != deviceId {
              outcome.foreign.insert(record.id)
              continue
            }
            // Newer modified_at wins; on a tie the incoming row only if it differs, so a retry is a no-op
            // and does not move the row in the feed.
            if existing.modifiedAt > record.modifiedAt {
              outcome.keptNewer[record.id] = existing.modifiedAt
              continue
            }
            if existing.modifiedAt == record.modifiedAt,
              StoredPayload.same(stored: existing.payload, incoming: record, incomingText: payload)
            {
              continue
            }
          }
          sequence += 1
          try connection.query(Self.upsertSQL, [
            .text(record.id), .text(deviceId), .real(record.windowEnd), .real(record.modifiedAt),
            .integer(sequence), .text(payload),
          ])
        }
        // The high-water mark: numbers are never handed out twice, even after the newest rows are deleted.
        try connection.query("UPDATE feed_state SET last_seq = ? WHERE id = 1", [.integer(sequence)])
        try connection.query(
          """
          INSERT INTO devices (device_id, first_seen_at, last_upload_at, outbox_pending) VALUES (?1, ?2, ?2, ?3)
          ON CONFLICT (device_id) DO UPDATE SET last_upload_at = ?2, outbox_pending = ?3
          """, [.text(deviceId), .real(receivedAt), outboxPending.map { .integer(Int64($0)) } ?? .null])
        try Self.refreshDevice(connection, deviceId: deviceId, quarantined: outboxQuarantined, receivedAt: receivedAt)
        return outcome
      }
    }
  }

  public func latest(deviceId: String, notAfter: Double) async throws -> MeasurementRecord? {
    let payload = try await read { connection in
      var payload: String?
      try connection.query(
        """
        SELECT payload FROM measurements WHERE device_id = ? AND window_end <= ?
        ORDER BY window_end DESC, id DESC LIMIT 1
        """, [.text(deviceId), .real(notAfter)]
      ) { payload = $0.text(0) }
      return payload
    }
    return try payload.map { try StoredPayload.decode($0) }
  }

  public func feedPayloads(deviceId: String?, after: Int64, limit: Int) async throws -> RawFeedSlice {
    try await read { connection in
      var rows: [(Int64, String)] = []
      let collect: (SQLiteStatement) throws -> Void = { rows.append(($0.int64(0), $0.text(1) ?? "")) }
      if let deviceId {
        try connection.query(
          "SELECT seq, payload FROM measurements WHERE device_id = ? AND seq > ? ORDER BY seq LIMIT ?",
          [.text(deviceId), .integer(after), .integer(Int64(limit + 1))], row: collect)
      } else {
        try connection.query(
          "SELECT seq, payload FROM measurements WHERE seq > ? ORDER BY seq LIMIT ?",
          [.integer(after), .integer(Int64(limit + 1))], row: collect)
      }
      let page = rows.prefix(limit)
      return RawFeedSlice(rows: page.map(\.1), lastSequence: page.last?.0 ?? after, hasMore: rows.count > limit)
    }
  }

  public func rows(deviceId: String, windowEnd: Range<Double>) async throws -> [MeasurementRecord] {
    let payloads = try await read { connection in
      var payloads: [String] = []
      try connection.query(
        """
        SELECT payload FROM measurements WHERE device_id = ? AND window_end >= ? AND window_end < ?
        ORDER BY window_end, id
        """, [.text(deviceId), .real(windowEnd.lowerBound), .real(windowEnd.upperBound)]
      ) { payloads.append($0.text(0) ?? "") }
      return payloads
    }
    return try payloads.map { try StoredPayload.decode($0) }
  }

  public func devices(notAfter: Double) async throws -> [DeviceSummary] {
    let found = try await read { connection in
      var found: [(String, Double, Double, Int64, String?)] = []
      try connection.query(
        """
        SELECT d.device_id, d.first_seen_at, COALESCE(d.last_upload_at, -1), COALESCE(d.outbox_pending, -1),
          (SELECT payload FROM measurements m WHERE m.device_id = d.device_id AND m.window_end <= ?
           ORDER BY m.window_end DESC, m.id DESC LIMIT 1)
        FROM devices d ORDER BY d.device_id
        """, [.real(notAfter)]
      ) { found.append(($0.text(0) ?? "", $0.double(1), $0.double(2), $0.int64(3), $0.text(4))) }
      return found
    }
    return try found.map { device, firstSeen, lastUpload, pending, payload in
      DeviceSummary(
        deviceId: device, firstSeenAt: firstSeen, lastUploadAt: lastUpload < 0 ? nil : lastUpload,
        outboxPending: pending < 0 ? nil : Int(pending), latest: try payload.map { try StoredPayload.decode($0) })
    }
  }

  public func deleteDevice(_ deviceId: String) async throws -> DeviceDeletion {
    try await write { connection in
      // Overwrite the deleted rows' bytes, and the WAL after the commit: the data of a person who left must not
      // linger in free pages of the file.
      try connection.execute("PRAGMA secure_delete=ON")
      defer { try? connection.execute("PRAGMA secure_delete=OFF") }
      let deletion = try connection.transaction {
        let rows = try Self.delete(connection, from: "measurements", deviceId: deviceId)
        let tokens = try Self.delete(connection, from: "tokens", deviceId: deviceId)
        let known = try Self.delete(connection, from: "devices", deviceId: deviceId)
        return DeviceDeletion(rows: rows, tokens: tokens, known: known + rows + tokens > 0)
      }
      try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      return deletion
    }
  }

  public func count(deviceId: String?) async throws -> Int {
    try await read { connection in
      var count: Int64 = 0
      if let deviceId {
        try connection.query("SELECT COUNT(*) FROM measurements WHERE device_id = ?", [.text(deviceId)]) { count = $0.int64(0) }
      } else {
        try connection.query("SELECT COUNT(*) FROM measurements", []) { count = $0.int64(0) }
      }
      return Int(count)
    }
  }

  public func ping() async throws {
    try await read { connection in try connection.query("SELECT 1", []) }
  }

  /// Stops the threads and closes every connection (the file is then closed by this process: a restart, or the
  /// power-cut test's reboot, may open it afresh).
  public func close() async throws {
    try await writerPool.shutdownGracefully()
    try await readerPool.shutdownGracefully()
    writeLock.withLock { writer.close() }
    readLock.withLock { idleReaders.forEach { $0.close() } }
  }

  // MARK: - Internal

  /// Runs `body` on the writer thread with the writer connection.
  func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
    try await writerPool.runIfActive { [self] in
      try hubErrors { try writeLock.withLock { try body(writer) } }
    }
  }

  /// Runs `body` on a reader thread with a reader connection of its own.
  func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
    try await readerPool.runIfActive { [self] in
      let connection = readLock.withLock { idleReaders.removeLast() }
      defer { readLock.withLock { idleReaders.append(connection) } }
      return try hubErrors { try body(connection) }
    }
  }

  // MARK: - Private

  /// Several hub processes may share the file (a restart overlapping the old one): wait, do not fail.
  private static func open(_ path: String, create: Bool, vfs: String?) throws(SQLiteError) -> SQLiteConnection {
    try SQLiteConnection(path: path, readOnly: false, create: create, busyTimeoutMs: 5000, vfs: vfs)
  }

  /// SQLite's own errors come out as the hub's, naming the file.
  private func hubErrors<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SQLiteError {
      throw HubStorageError("SQLite error in \(path): \(error)")
    }
  }

  /// The conflict rule was applied above, under the same write lock, so this writes unconditionally.
  private static let upsertSQL = """
    INSERT INTO measurements (id, device_id, window_end, modified_at, seq, payload) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET
      window_end = excluded.window_end, modified_at = excluded.modified_at, seq = excluded.seq,
      payload = excluded.payload
    """

  private static func delete(_ connection: SQLiteConnection, from table: String, deviceId: String) throws -> Int {
    var count: Int64 = 0
    try connection.query("SELECT COUNT(*) FROM \(table) WHERE device_id = ?", [.text(deviceId)]) { count = $0.int64(0) }
    try connection.query("DELETE FROM \(table) WHERE device_id = ?", [.text(deviceId)])
    return Int(count)
  }

  /// Creates the file readable by its owner only (`SQLiteConnection.createPrivateFile`).
  private static func createPrivately(_ path: String) throws {
    if let reason = SQLiteConnection.createPrivateFile(path) {
      throw HubStorageError("cannot create the hub database \(path): \(reason); check the path and permissions")
    }
  }
}
