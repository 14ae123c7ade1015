import CSQLite

/// One connection to a SQLite database file: a thin, typed layer over the C API.
///
/// Not thread-safe and deliberately not `Sendable`: it is opened with `SQLITE_OPEN_NOMUTEX`, so the owner must
/// serialise every call. The device's `MeasurementStore` keeps its connection inside a `Mutex`; the hub's
/// `SQLiteHubStorage` behind a lock on NIO's blocking pool. The one SQLite wrapper of the package.
public final class SQLiteConnection {
  // MARK: - Properties

  /// `sqlite3_destructor_type` for "copy the bytes now": the SQLITE_TRANSIENT macro cannot be imported.
  static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  public let path: String
  private(set) var handle: OpaquePointer?
  private var statementCache: [String: SQLiteStatement] = [:]

  // MARK: - Initialization

  /// Opens `path`. `create` adds SQLITE_OPEN_CREATE; `readOnly` opens with SQLITE_OPEN_READONLY. `immutable`
  /// (read-only media only) tells SQLite the file cannot change, so it needs no -shm file and takes no locks.
  /// `vfs` names a registered SQLite VFS other than the default (the power-cut tests' crash simulator).
  public init(
    path: String, readOnly: Bool, create: Bool, busyTimeoutMs: Int32, immutable: Bool = false, vfs: String? = nil
  ) throws(SQLiteError) {
    self.path = path
    // EXRESCODE: extended codes from open too. NOMUTEX: our owner's lock serialises calls (see type comment).
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    flags |= readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    if create && !readOnly && !immutable { flags |= SQLITE_OPEN_CREATE }
    var name = path
    if immutable {
      flags |= SQLITE_OPEN_URI
      name = "file:" + Self.uriEscaped(path) + "?immutable=1"
    }
    var db: OpaquePointer?
    let rc = sqlite3_open_v2(name, &db, flags, vfs)
    guard rc == SQLITE_OK, let db else {
      let error = SQLiteError(
        extendedCode: db.map { sqlite3_extended_errcode($0) } ?? rc,
        message: db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc)),
        systemErrno: db.map { sqlite3_system_errno($0) } ?? 0,
        operation: "open")
      sqlite3_close_v2(db)
      throw error
    }
    handle = db
    sqlite3_extended_result_codes(db, 1)
    sqlite3_busy_timeout(db, busyTimeoutMs)
  }

  deinit {
    close()
  }

  // MARK: - Public

  /// Finalises cached statements and closes the handle. Safe to call twice.
  public func close() {
    for statement in statementCache.values { statement.finalize() }
    statementCache.removeAll()
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// Whether the connection can write (false when opened read-only or the file/medium is read-only).
  public var isReadOnly: Bool {
    guard let handle else { return true }
    return sqlite3_db_readonly(handle, "main") == 1
  }

  /// Runs one or more statements that return no rows we need (DDL, PRAGMA assignments, BEGIN/COMMIT).
  public func execute(_ sql: String) throws(SQLiteError) {
    let db = try open()
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(db, sql, nil, nil, &message)
    if rc != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
      sqlite3_free(message)
      throw SQLiteError(
        extendedCode: sqlite3_extended_errcode(db), message: text, systemErrno: sqlite3_system_errno(db),
        operation: Self.oneLine(sql))
    }
  }

  /// A new prepared statement; the caller owns it (use for one-off SQL).
  public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    let db = try open()
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    guard rc == SQLITE_OK, let statement else {
      throw lastError(operation: Self.oneLine(sql))
    }
    return SQLiteStatement(handle: statement, connection: self, sql: sql)
  }

  /// A prepared statement kept for the connection's lifetime (hot paths: inserts, outbox queries). Reset and
  /// unbound before it is returned.
  public func cached(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    if let statement = statementCache[sql] {
      statement.reset()
      return statement
    }
    let statement = try prepare(sql)
    statementCache[sql] = statement
    return statement
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back if `body` or the commit throws, so that a failed
  /// transaction leaves nothing behind and can be retried as a whole.
  public func transaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      if let handle, sqlite3_get_autocommit(handle) == 0 {
        try? execute("ROLLBACK")
      }
      throw error
    }
  }

  /// The first column of the first row of `sql` as an integer (PRAGMAs, counts); nil when no row or NULL.
  public func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
    let statement = try prepare(sql)
    defer { statement.finalize() }
    guard try statement.step() else { return nil }
    return statement.isNull(0) ? nil : statement.int64(0)
  }

  /// The first column of the first row of `sql` as text; nil when no row or NULL.
  public func scalarText(_ sql: String) throws(SQLiteError) -> String? {
    let statement = try prepare(sql)
    defer { statement.finalize() }
    guard try statement.step() else { return nil }
    return statement.text(0)
  }

  /// Keeps the -wal and -shm files when the last connection closes (SQLITE_FCNTL_PERSIST_WAL), so that readers
  /// without write access to the directory (the CLI as a normal user) can still open the database.
  public func persistWAL() {
    guard let handle else { return }
    var on: Int32 = 1
    sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &on)
  }

  /// Rows changed by the last INSERT/UPDATE/DELETE.
  public var changes: Int {
    guard let handle else { return 0 }
    return Int(sqlite3_changes(handle))
  }

  /// The error state of the connection as a typed error.
  public func lastError(operation: String) -> SQLiteError {
    guard let handle else {
      return SQLiteError(extendedCode: SQLITE_MISUSE, message: "connection is closed", operation: operation)
    }
    return SQLiteError(
      extendedCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
      systemErrno: sqlite3_system_errno(handle), operation: operation)
  }

  // MARK: - Private

  private func open() throws(SQLiteError) -> OpaquePointer {
    guard let handle else {
      throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "connection is closed", operation: "use")
    }
    return handle
  }

  /// A path as the path part of a SQLite URI: `%`, `?` and `#` escaped.
  static func uriEscaped(_ path: String) -> String {
    var text = ""
    for character in path {
      switch character {
      case "%": text += "%25"
      case "?": text += "%3f"
      case "#": text += "%23"
      default: text.append(character)
      }
    }
    return text
  }

  static func oneLine(_ sql: String) -> String {
    let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
    let text = words.joined(separator: " ")
    return text.count > 80 ? String(text.prefix(77)) + "..." : text
  }
}
