import SQLite

extension SQLiteConnection {
  /// Runs `sql` as a cached statement with `values` bound, handing each result row to `row` (the statement is
  /// valid only inside the call). The hub's storage reads and writes through this one entry point.
  func query(_ sql: String, _ values: [SQLiteValue], row: ((SQLiteStatement) throws -> Void)? = nil) throws {
    let statement = try cached(sql)
    try statement.bind(values)
    defer { statement.reset() }
    while try statement.step() { try row?(statement) }
  }
}
