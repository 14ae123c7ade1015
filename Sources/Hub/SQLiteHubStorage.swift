import NIOConcurrencyHelpers
import NIOPosix
import SyncWire

/// The default hub storage: one SQLite file in WAL mode, through the system libsqlite3 (the `CSQLite` module the
/// device's store uses too: one SQLite, no second amalgamation to compile). Calls run on NIO's blocking thread
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
    connection = try SQLiteConnection(path: path)
    try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
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
      try connection.execute("BEGIN IMMEDIATE")
      do {
        var foreign: Set<String> = []
        var sequence: Int64 = 0
        try connection.query("SELECT COALESCE(MAX(seq), 0) FROM measurements", []) { sequence = $0.integer(0) }
        for (record, payload) in zip(records, payloads) {
          var existing: (owner: String, modifiedAt: Double, payload: String)?
          try connection.query(
            "SELECT device_id, modified_at, payload FROM measurements WHERE id = ?", [.text(record.id)]
          ) { existing = ($0.text(0) ?? "", $0.double(1), $0.text(2) ?? "") }
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
          try connection.query(Self.upsertSQL, [
            .text(record.id), .text(deviceId), .double(record.windowEnd), .double(record.modifiedAt),
            .integer(sequence), .text(payload),
          ])
        }
        try connection.execute("COMMIT")
        return foreign
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }

  public func latest(deviceId: String) async throws -> MeasurementRecord? {
    try await blocking { connection in
      var payload: String?
      try connection.query(
        "SELECT payload FROM measurements WHERE device_id = ? ORDER BY window_end DESC, id DESC LIMIT 1",
        [.text(deviceId)]
      ) { payload = $0.text(0) }
      return try payload.map { try StoredPayload.decode($0) }
    }
  }

  public func feed(deviceId: String?, after: Int64, limit: Int) async throws -> FeedSlice {
    try await blocking { connection in
      var rows: [(Int64, String)] = []
      let collect: (SQLiteRow) throws -> Void = { rows.append(($0.integer(0), $0.text(1) ?? "")) }
      if let deviceId {
        try connection.query(
          "SELECT seq, payload FROM measurements WHERE device_id = ? AND seq > ? ORDER BY seq LIMIT ?",
          [.text(deviceId), .integer(after), .integer(Int64(limit + 1))], row: collect)
      } else {
        try connection.query(
          "SELECT seq, payload FROM measurements WHERE seq > ? ORDER BY seq LIMIT ?",
          [.integer(after), .integer(Int64(limit + 1))], row: collect)
      }
      let hasMore = rows.count > limit
      let page = rows.prefix(limit)
      return FeedSlice(
        rows: try page.map { try StoredPayload.decode($0.1) }, lastSequence: page.last?.0 ?? after, hasMore: hasMore)
    }
  }

  public func device(forTokenHash hash: String) async throws -> String? {
    try await blocking { connection in
      var device: String?
      try connection.query("SELECT device_id FROM tokens WHERE token_hash = ?", [.text(hash)]) { device = $0.text(0) }
      return device
    }
  }

  public func addToken(hash: String, deviceId: String, createdAt: Double) async throws {
    try await blocking { connection in
      try connection.query(
        "INSERT INTO tokens (token_hash, device_id, created_at) VALUES (?, ?, ?)",
        [.text(hash), .text(deviceId), .double(createdAt)])
    }
  }

  public func count(deviceId: String?) async throws -> Int {
    try await blocking { connection in
      var count: Int64 = 0
      if let deviceId {
        try connection.query("SELECT COUNT(*) FROM measurements WHERE device_id = ?", [.text(deviceId)]) { count = $0.integer(0) }
      } else {
        try connection.query("SELECT COUNT(*) FROM measurements", []) { count = $0.integer(0) }
      }
      return Int(count)
    }
  }

  public func ping() async throws {
    try await blocking { connection in try connection.query("SELECT 1", []) }
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

  private func blocking<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive { [self] in
      try lock.withLock { try body(connection) }
    }
  }
}
