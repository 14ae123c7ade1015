import NIOConcurrencyHelpers
import NIOPosix
import SQLite
import SyncWire

/// The default hub storage: one SQLite file in WAL mode, through the system libsqlite3 and the `SQLite` wrapper the
/// device's store uses too (one wrapper, no second amalgamation to compile). Calls run on NIO's blocking thread
/// pool so a slow disk never stalls the event loops; one connection behind a lock serialises them, which is
/// what SQLite does with writers anyway.
public final class SQLiteHubStorage: HubStorage, @unchecked Sendable {
  public let kind = "sqlite"
  public let path: String
  /// Guards `connection`: every use of it happens inside `lock.withLock`.
  private let lock = NIOLock()
  private let connection: SQLiteConnection

  public init(path: String) throws {
    self.path = path
    do {
      // Several hub processes may share the file (a restart overlapping the old one): wait, do not fail.
      connection = try SQLiteConnection(path: path, readOnly: false, create: true, busyTimeoutMs: 5000)
      try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
    } catch {
      throw HubStorageError("cannot open the hub database \(path): \(error.message); check the path and permissions")
    }
  }

  // MARK: - HubStorage

  public func migrate() async throws {
    try await blocking { connection in
      try connection.execute(
        """
        BEGIN IMMEDIATE;
        CREATE TABLE IF NOT EXISTS measurements (
          id TEXT PRIMARY KEY,
          device_id TEXT NOT NULL,
          window_end REAL NOT NULL,
          modified_at REAL NOT NULL,
          seq INTEGER NOT NULL,
          payload TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS measurements_device_window ON measurements (device_id, window_end);
        CREATE UNIQUE INDEX IF NOT EXISTS measurements_seq ON measurements (seq);
        CREATE INDEX IF NOT EXISTS measurements_device_seq ON measurements (device_id, seq);
        CREATE TABLE IF NOT EXISTS tokens (
          token_hash TEXT PRIMARY KEY,
          device_id TEXT NOT NULL,
          created_at REAL NOT NULL
        );
        PRAGMA user_version = 1;
        COMMIT;
        """)
    }
  }

  public func upsert(deviceId: String, records: [MeasurementRecord]) async throws -> Set<String> {
    guard !records.isEmpty else { return [] }
    let payloads = try StoredPayload.encode(records)
    return try await blocking { connection in
      try connection.transaction {
        var foreign: Set<String> = []
        var sequence = try connection.scalarInt("SELECT COALESCE(MAX(seq), 0) FROM measurements") ?? 0
        for (record, payload) in zip(records, payloads) {
          let existing = try connection.cached(
            "SELECT device_id, modified_at, payload FROM measurements WHERE id = ?"
          ).rows([.text(record.id)]) { row in
            (owner: row.text(0) ?? "", modifiedAt: row.double(1), payload: row.text(2) ?? "")
          }.first
          if let existing {
            if existing.owner != deviceId {
              foreign.insert(record.id)
              continue
            }
            // Newer modified_at wins; on a tie the incoming row only if it differs, so a retry is a no-op
            // and does not move the row in the feed.
            if existing.modifiedAt > record.modifiedAt { continue }
            if existing.modifiedAt == record.modifiedAt, (try? StoredPayload.decode(existing.payload)) == record { continue }
          }
          sequence += 1
          try connection.cached(Self.upsertSQL).run([
            .text(record.id), .text(deviceId), .real(record.windowEnd), .real(record.modifiedAt),
            .integer(sequence), .text(payload),
          ])
        }
        return foreign
      }
    }
  }

  public func latest(deviceId: String) async throws -> MeasurementRecord? {
    try await blocking { connection in
      let payload = try connection.cached(
        "SELECT payload FROM measurements WHERE device_id = ? ORDER BY window_end DESC, id DESC LIMIT 1"
      ).rows([.text(deviceId)]) { $0.text(0) }.first ?? nil
      return try payload.map { try StoredPayload.decode($0) }
    }
  }

  public func feed(deviceId: String?, after: Int64, limit: Int) async throws -> FeedSlice {
    try await blocking { connection in
      let collect: (SQLiteStatement) -> (Int64, String) = { ($0.int64(0), $0.text(1) ?? "") }
      let rows: [(Int64, String)]
      if let deviceId {
        rows = try connection.cached(
          "SELECT seq, payload FROM measurements WHERE device_id = ? AND seq > ? ORDER BY seq LIMIT ?"
        ).rows([.text(deviceId), .integer(after), .int(limit + 1)], collect)
      } else {
        rows = try connection.cached(
          "SELECT seq, payload FROM measurements WHERE seq > ? ORDER BY seq LIMIT ?"
        ).rows([.integer(after), .int(limit + 1)], collect)
      }
      let hasMore = rows.count > limit
      let page = rows.prefix(limit)
      return FeedSlice(
        rows: try page.map { try StoredPayload.decode($0.1) }, lastSequence: page.last?.0 ?? after, hasMore: hasMore)
    }
  }

  public func device(forTokenHash hash: String) async throws -> String? {
    try await blocking { connection in
      try connection.cached("SELECT device_id FROM tokens WHERE token_hash = ?").rows([.text(hash)]) { $0.text(0) }
        .first ?? nil
    }
  }

  public func addToken(hash: String, deviceId: String, createdAt: Double) async throws {
    try await blocking { connection in
      try connection.cached("INSERT INTO tokens (token_hash, device_id, created_at) VALUES (?, ?, ?)")
        .run([.text(hash), .text(deviceId), .real(createdAt)])
    }
  }

  public func count(deviceId: String?) async throws -> Int {
    try await blocking { connection in
      guard let deviceId else { return Int(try connection.scalarInt("SELECT COUNT(*) FROM measurements") ?? 0) }
      return try connection.cached("SELECT COUNT(*) FROM measurements WHERE device_id = ?")
        .rows([.text(deviceId)]) { $0.int(0) }.first ?? 0
    }
  }

  public func ping() async throws {
    try await blocking { connection in _ = try connection.scalarInt("SELECT 1") }
  }

  public func close() async throws {}

  // MARK: - Private

  /// The conflict rule was applied above, under the same write lock, so this writes unconditionally.
  private static let upsertSQL = """
    INSERT INTO measurements (id, device_id, window_end, modified_at, seq, payload) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET
      window_end = excluded.window_end, modified_at = excluded.modified_at, seq = excluded.seq,
      payload = excluded.payload
    """

  /// Runs `body` on the blocking pool under the lock; SQLite's own errors come out as the hub's, naming the file.
  private func blocking<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive { [self] in
      do {
        return try lock.withLock { try body(connection) }
      } catch let error as SQLiteError {
        throw HubStorageError("SQLite error in \(path): \(error)")
      }
    }
  }
}
