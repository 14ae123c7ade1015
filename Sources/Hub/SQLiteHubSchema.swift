import SQLite
import SyncWire

/// The hub's SQLite schema, as numbered migrations (`PRAGMA user_version`), each in one transaction, so a hub
/// file of any earlier version opens and is brought up to date.
enum SQLiteHubSchema {
  static let version: Int64 = 3

  static func migrate(_ connection: SQLiteConnection) throws {
    try connection.transaction {
      var current: Int64 = 0
      try connection.query("PRAGMA user_version", []) { current = $0.int64(0) }
      guard current <= version else {
        throw HubStorageError(
          "the hub database is of schema \(current), newer than this stressmon-hub (\(version)); upgrade the hub")
      }
      if current < 1 { try connection.execute(version1) }
      if current < 2 { try connection.execute(version2) }
      if current < 3 { try connection.execute(version3) }
      try connection.execute("PRAGMA user_version = \(version)")
    }
  }

  /// Measurements keyed by id with an indexed feed sequence; device tokens by hash.
  private static let version1 = """
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
    """

  /// Token kinds (device, reader, kiosk) with a public id and last use; devices with their last upload (the fleet
  /// page); the feed's high-water sequence number (never reused after a delete). Version-1 tokens become device
  /// tokens; their id is the first 12 hex digits of the hash, as for new ones.
  private static let version2 = """
    ALTER TABLE tokens RENAME TO tokens_v1;
    CREATE TABLE tokens (
      token_hash TEXT PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL CHECK (kind IN ('device', 'reader', 'kiosk')),
      device_id TEXT,
      created_at REAL NOT NULL,
      last_used_at REAL
    );
    INSERT INTO tokens (token_hash, id, kind, device_id, created_at)
      SELECT token_hash, substr(token_hash, 1, 12), 'device', device_id, created_at FROM tokens_v1;
    DROP TABLE tokens_v1;
    CREATE INDEX tokens_device ON tokens (device_id);
    CREATE TABLE devices (
      device_id TEXT PRIMARY KEY,
      first_seen_at REAL NOT NULL,
      last_upload_at REAL,
      outbox_pending INTEGER
    );
    INSERT OR IGNORE INTO devices (device_id, first_seen_at)
      SELECT device_id, MIN(created_at) FROM tokens WHERE kind = 'device' GROUP BY device_id;
    INSERT OR IGNORE INTO devices (device_id, first_seen_at)
      SELECT device_id, MIN(modified_at) FROM measurements GROUP BY device_id;
    CREATE TABLE feed_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_seq INTEGER NOT NULL);
    INSERT INTO feed_state (id, last_seq) SELECT 1, COALESCE(MAX(seq), 0) FROM measurements;
    """

  /// The fleet page and the gauges sort and count devices by their newest window: its end, level and HRV are kept
  /// on the device's row (refreshed by every upload, `SQLiteHubStorage.refreshDevice`), with the rows the device
  /// holds in quarantine, so a fleet of any size is paged from an index instead of reading every device's rows.
  private static let skew = Int(SyncAPI.maxClockSkew)
  private static let version3 = """
    ALTER TABLE devices ADD COLUMN outbox_quarantined INTEGER;
    ALTER TABLE devices ADD COLUMN latest_window_end REAL;
    ALTER TABLE devices ADD COLUMN latest_level REAL;
    ALTER TABLE devices ADD COLUMN latest_hrv REAL;
    UPDATE devices SET (latest_window_end, latest_level, latest_hrv) = (
      \(SQLiteHubStorage.newestWindowSQL(device: "devices.device_id", notAfter: "unixepoch() + \(skew)")));
    CREATE INDEX devices_latest_window ON devices (latest_window_end);
    CREATE INDEX devices_latest_level ON devices (latest_level);
    CREATE INDEX devices_latest_hrv ON devices (latest_hrv);
    """
}
