import CSQLite

/// A thin wrapper over one sqlite3 connection. Not thread-safe: `SQLiteHubStorage` owns it behind a lock.
final class SQLiteConnection {
  private var handle: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]
  let path: String

  /// SQLite's SQLITE_TRANSIENT: the string is copied before `bind` returns (a macro Swift cannot import).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  init(path: String) throws {
    self.path = path
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(handle)
      throw HubStorageError("cannot open the hub database \(path): \(message); check the path and permissions")
    }
    // Several hub processes may share the file (a restart overlapping the old one): wait, do not fail.
    sqlite3_busy_timeout(handle, 5000)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close(handle)
  }

  func execute(_ sql: String) throws {
    var error: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
      let message = error.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(error)
      throw HubStorageError("SQLite error in \(path): \(message)")
    }
  }

  /// Runs a cached prepared statement: binds `values`, calls `row` for each result row.
  func query(_ sql: String, _ values: [SQLiteValue], row: ((SQLiteRow) throws -> Void)? = nil) throws {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (index, value) in values.enumerated() {
      let position = Int32(index + 1)
      switch value {
      case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
      case .double(let number): sqlite3_bind_double(statement, position, number)
      case .integer(let number): sqlite3_bind_int64(statement, position, number)
      case .null: sqlite3_bind_null(statement, position)
      }
    }
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_DONE { return }
      guard result == SQLITE_ROW else { throw lastError("running '\(sql.prefix(60))'") }
      try row?(SQLiteRow(statement: statement))
    }
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw lastError("preparing '\(sql.prefix(60))'")
    }
    statements[sql] = statement
    return statement
  }

  private func lastError(_ context: String) -> HubStorageError {
    HubStorageError("SQLite error \(context) in \(path): \(String(cString: sqlite3_errmsg(handle)))")
  }
}

enum SQLiteValue {
  case text(String)
  case double(Double)
  case integer(Int64)
  case null
}

/// One result row; valid only inside the `query` callback.
struct SQLiteRow {
  let statement: OpaquePointer

  func text(_ column: Int32) -> String? {
    guard let pointer = sqlite3_column_text(statement, column) else { return nil }
    return String(cString: pointer)
  }

  func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

  func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
}
