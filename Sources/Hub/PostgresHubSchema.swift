import Logging
import PostgresNIO
import SyncWire

/// The hub's PostgreSQL schema as numbered migrations, run under the hub's advisory lock (instances may start
/// together). The version lives in `hub_schema`; a database from before it has the version-1 tables.
enum PostgresHubSchema {
  static let version: Int32 = 3

  static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
    try await connection.query(
      "CREATE TABLE IF NOT EXISTS hub_schema (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)",
      logger: logger)
    var current: Int32 = 0
    for try await found in try await connection.query("SELECT version FROM hub_schema WHERE id = 1", logger: logger)
      .decode(Int32.self)
    {
      current = found
    }
    guard current <= version else {
      throw HubStorageError(
        "the hub database is of schema \(current), newer than this stressmon-hub (\(version)); upgrade the hub")
    }
    let steps: [PostgresQuery] = (current < 1 ? version1 : []) + (current < 2 ? version2 : [])
      + (current < 3 ? version3 : [])
    for step in steps { try await connection.query(step, logger: logger) }
    try await connection.query(
      "INSERT INTO hub_schema (id, version) VALUES (1, \(version)) ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version",
      logger: logger)
  }

  /// Measurements with a jsonb payload and a sequence-numbered feed; device tokens by hash. `IF NOT EXISTS`
  /// throughout: databases made before `hub_schema` existed already have these tables.
  private static let version1: [PostgresQuery] = [
    """
    CREATE TABLE IF NOT EXISTS measurements (
      id text PRIMARY KEY,
      device_id text NOT NULL,
      window_end double precision NOT NULL,
      modified_at double precision NOT NULL,
      seq bigint NOT NULL UNIQUE,
      payload jsonb NOT NULL
    )
    """,
    "CREATE SEQUENCE IF NOT EXISTS measurement_seq",
    "CREATE INDEX IF NOT EXISTS measurements_device_window ON measurements (device_id, window_end)",
    "CREATE INDEX IF NOT EXISTS measurements_device_seq ON measurements (device_id, seq)",
    """
    CREATE TABLE IF NOT EXISTS tokens (
      token_hash text PRIMARY KEY, device_id text NOT NULL, created_at double precision NOT NULL)
    """,
  ]

  /// Token kinds with a public id and last use, devices with their last upload (see `SQLiteHubSchema`).
  private static let version2: [PostgresQuery] = [
    "ALTER TABLE tokens ADD COLUMN IF NOT EXISTS id text",
    "ALTER TABLE tokens ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'device'",
    "ALTER TABLE tokens ADD COLUMN IF NOT EXISTS last_used_at double precision",
    "ALTER TABLE tokens ALTER COLUMN device_id DROP NOT NULL",
    "UPDATE tokens SET id = substr(token_hash, 1, 12) WHERE id IS NULL",
    "ALTER TABLE tokens ALTER COLUMN id SET NOT NULL",
    "CREATE UNIQUE INDEX IF NOT EXISTS tokens_id ON tokens (id)",
    "CREATE INDEX IF NOT EXISTS tokens_device ON tokens (device_id)",
    """
    CREATE TABLE IF NOT EXISTS devices (
      device_id text PRIMARY KEY, first_seen_at double precision NOT NULL, last_upload_at double precision,
      outbox_pending bigint)
    """,
    """
    INSERT INTO devices (device_id, first_seen_at)
    SELECT device_id, MIN(created_at) FROM tokens WHERE kind = 'device' GROUP BY device_id ON CONFLICT DO NOTHING
    """,
    """
    INSERT INTO devices (device_id, first_seen_at)
    SELECT device_id, MIN(modified_at) FROM measurements GROUP BY device_id ON CONFLICT DO NOTHING
    """,
  ]

  /// The device's newest window on its row, and its quarantine (see `SQLiteHubSchema.version3`).
  private static let version3: [PostgresQuery] = [
    "ALTER TABLE devices ADD COLUMN IF NOT EXISTS outbox_quarantined bigint",
    "ALTER TABLE devices ADD COLUMN IF NOT EXISTS latest_window_end double precision",
    "ALTER TABLE devices ADD COLUMN IF NOT EXISTS latest_level double precision",
    "ALTER TABLE devices ADD COLUMN IF NOT EXISTS latest_hrv double precision",
    PostgresQuery(unsafeSQL: """
      UPDATE devices SET (latest_window_end, latest_level, latest_hrv) = (
        \(PostgresHubStorage.newestWindowSQL(
          device: "devices.device_id", notAfter: "extract(epoch FROM now()) + \(Int(SyncAPI.maxClockSkew))")))
      """),
    "CREATE INDEX IF NOT EXISTS devices_latest_window ON devices (latest_window_end)",
    "CREATE INDEX IF NOT EXISTS devices_latest_level ON devices (latest_level)",
    "CREATE INDEX IF NOT EXISTS devices_latest_hrv ON devices (latest_hrv)",
  ]
}
