import SQLite

/// One numbered step of the schema. Steps run in order, each in its own transaction together with the
/// `PRAGMA user_version` bump, so a crash mid-migration leaves the previous version intact.
public struct SchemaMigration: Sendable {
  public var version: Int
  public var summary: String
  public var statements: [String]

  public init(version: Int, summary: String, statements: [String]) {
    self.version = version
    self.summary = summary
    self.statements = statements
  }
}

/// The store's schema, as numbered migrations. Never edit a released step: add a new one.
///
/// Clock states (columns `clock_state`): 0 = synchronised when measured, 1 = corrected from the monotonic clock
/// after the boot's clock synchronised, 2 = waiting (taken before synchronisation in a boot that may still
/// synchronise), 3 = unresolved (its boot ended without ever synchronising: kept and shown, never uploaded).
public enum StoreSchema {
  /// Marks the file as ours in the SQLite header (`PRAGMA application_id`): ASCII "STMN".
  public static let applicationId: Int32 = 0x5354_4D4E

  public static let migrations: [SchemaMigration] = [
    SchemaMigration(
      version: 1, summary: "measurements, IBIs, boots (clock anchors), baselines, counters",
      statements: [
        """
        CREATE TABLE boots (
          id INTEGER PRIMARY KEY,
          boot_id TEXT NOT NULL UNIQUE,
          first_seen_wall REAL NOT NULL,
          sync_wall REAL,
          sync_monotonic REAL
        )
        """,
        """
        CREATE TABLE measurements (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          device_id TEXT NOT NULL,
          window_start REAL NOT NULL,
          window_end REAL NOT NULL,
          boot INTEGER NOT NULL REFERENCES boots(id),
          monotonic_end REAL NOT NULL,
          clock_state INTEGER NOT NULL CHECK (clock_state BETWEEN 0 AND 3),
          recorded_window_end REAL NOT NULL,
          stress_level REAL,
          category TEXT,
          confidence REAL NOT NULL,
          sdnn_ms REAL,
          rmssd_ms REAL,
          heart_rate_bpm REAL,
          baseline_hrv_ms REAL NOT NULL,
          resting_heart_rate_bpm REAL NOT NULL,
          baseline_personal INTEGER NOT NULL,
          quality TEXT NOT NULL,
          beats INTEGER NOT NULL,
          rejected_beats INTEGER NOT NULL,
          modified_at REAL NOT NULL,
          needs_upload INTEGER NOT NULL DEFAULT 1,
          uploaded_at REAL,
          quarantine_reason TEXT,
          quarantined_at REAL
        )
        """,
        "CREATE INDEX measurements_time ON measurements(window_end)",
        // Only rows still to upload: small, so the outbox query stays cheap however long the history grows.
        "CREATE INDEX measurements_outbox ON measurements(window_end) WHERE needs_upload = 1 AND quarantined_at IS NULL",
        "CREATE INDEX measurements_quarantine ON measurements(quarantined_at) WHERE quarantined_at IS NOT NULL",
        // Only rows whose clock is not yet known: empty in normal running, so inserts pay nothing for it.
        "CREATE INDEX measurements_clock ON measurements(boot) WHERE clock_state >= 2",
        """
        CREATE TABLE ibis (
          seq INTEGER PRIMARY KEY,
          boot INTEGER NOT NULL REFERENCES boots(id),
          monotonic REAL NOT NULL,
          wall REAL NOT NULL,
          ibi_ms REAL NOT NULL,
          segment INTEGER NOT NULL,
          clock_state INTEGER NOT NULL CHECK (clock_state BETWEEN 0 AND 3)
        )
        """,
        "CREATE INDEX ibis_clock ON ibis(boot) WHERE clock_state >= 2",
        """
        CREATE TABLE baselines (
          seq INTEGER PRIMARY KEY,
          event TEXT NOT NULL CHECK (event IN ('computed', 'reset')),
          recorded_at REAL NOT NULL,
          hrv_ms REAL NOT NULL,
          resting_heart_rate_bpm REAL NOT NULL,
          is_personal INTEGER NOT NULL,
          window_count INTEGER NOT NULL,
          computed_at REAL,
          last_measurement_seq INTEGER NOT NULL
        )
        """,
        // Running totals and single values (numbers): drops, retirements, the last upload time.
        "CREATE TABLE counters (name TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID",
      ]),
  ]

  /// The newest schema version this binary knows.
  public static var latestVersion: Int { migrations.last?.version ?? 0 }
}

/// Brings a database up to date, or refuses one that is newer than this binary.
struct SchemaMigrator {
  var migrations: [SchemaMigration]

  /// The version the file is at (`PRAGMA user_version`).
  static func version(of connection: SQLiteConnection) throws(SQLiteError) -> Int {
    Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
  }

  /// Checks identity and version without writing anything: a newer or foreign file is refused untouched.
  func check(_ connection: SQLiteConnection) throws(StoreError) {
    let path = connection.path
    let (version, applicationId, tables) = try StoreError.mapping(path: path) {
      (
        try Self.version(of: connection),
        Int32(truncatingIfNeeded: try connection.scalarInt("PRAGMA application_id") ?? 0),
        try connection.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
      )
    }
    if applicationId != StoreSchema.applicationId && (applicationId != 0 || tables > 0) {
      throw .notAStressmonDatabase(path: path)
    }
    let latest = migrations.last?.version ?? 0
    if version > latest { throw .newerSchema(path: path, found: version, supported: latest) }
  }

  /// Applies every step above the file's version. Returns the versions applied.
  @discardableResult
  func migrate(_ connection: SQLiteConnection) throws(StoreError) -> [Int] {
    try check(connection)
    let path = connection.path
    return try StoreError.mapping(path: path) {
      var applied: [Int] = []
      let current = try Self.version(of: connection)
      for migration in migrations where migration.version > current {
        try connection.transaction {
          // Re-read inside the write lock: another process may have migrated meanwhile.
          guard try Self.version(of: connection) < migration.version else { return }
          for statement in migration.statements { try connection.execute(statement) }
          try connection.execute("PRAGMA application_id = \(StoreSchema.applicationId)")
          try connection.execute("PRAGMA user_version = \(migration.version)")
          applied.append(migration.version)
        }
      }
      return applied
    }
  }
}
