import CSQLite

/// A prepared statement. Parameters are 1-based (SQLite's convention), result columns 0-based.
/// Owned by its `SQLiteConnection`'s owner and used under the same lock; never shared across threads.
public final class SQLiteStatement {
  // MARK: - Properties

  private var handle: OpaquePointer?
  private unowned let connection: SQLiteConnection
  public let sql: String

  // MARK: - Initialization

  init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
    self.handle = handle
    self.connection = connection
    self.sql = sql
  }

  deinit {
    finalize()
  }

  // MARK: - Binding

  /// Binds the values in order to parameters 1…n, after resetting the statement.
  public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
    reset()
    for (offset, value) in values.enumerated() {
      try bind(value, at: Int32(offset + 1))
    }
  }

  public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
    guard let handle else { throw closed() }
    let rc: Int32
    switch value {
    case .null: rc = sqlite3_bind_null(handle, index)
    case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
    case .real(let v): rc = sqlite3_bind_double(handle, index, v)
    case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, SQLiteConnection.transient)
    }
    guard rc == SQLITE_OK else { throw connection.lastError(operation: "bind ?\(index) of " + operationText) }
  }

  // MARK: - Stepping

  /// Advances to the next row: true when a row is available, false when done.
  @discardableResult
  public func step() throws(SQLiteError) -> Bool {
    guard let handle else { throw closed() }
    let rc = sqlite3_step(handle)
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = connection.lastError(operation: operationText)
      sqlite3_reset(handle)
      throw error
    }
  }

  /// Binds, runs to completion and resets: for INSERT/UPDATE/DELETE.
  public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
    try bind(values)
    while try step() {}
    reset()
  }

  /// Collects every row through `map`.
  public func rows<T>(_ values: [SQLiteValue] = [], _ map: (SQLiteStatement) throws -> T) throws -> [T] {
    try bind(values)
    defer { reset() }
    var result: [T] = []
    while try step() { result.append(try map(self)) }
    return result
  }

  /// Resets the statement to run again and clears its bindings.
  public func reset() {
    guard let handle else { return }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  public func finalize() {
    if let handle { sqlite3_finalize(handle) }
    handle = nil
  }

  // MARK: - Columns

  public func isNull(_ column: Int32) -> Bool {
    guard let handle else { return true }
    return sqlite3_column_type(handle, column) == SQLITE_NULL
  }

  public func int64(_ column: Int32) -> Int64 {
    guard let handle else { return 0 }
    return sqlite3_column_int64(handle, column)
  }

  public func int(_ column: Int32) -> Int { Int(int64(column)) }

  public func double(_ column: Int32) -> Double {
    guard let handle else { return 0 }
    return sqlite3_column_double(handle, column)
  }

  public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

  public func text(_ column: Int32) -> String? {
    guard let handle, let bytes = sqlite3_column_text(handle, column) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  // MARK: - Private

  private var operationText: String { SQLiteConnection.oneLine(sql) }

  private func closed() -> SQLiteError {
    SQLiteError(extendedCode: SQLITE_MISUSE, message: "statement is finalised", operation: operationText)
  }
}

/// A value bound to a statement parameter.
public enum SQLiteValue: Sendable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)

  public static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
  public static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
  public static func optional(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
  public static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}
