import Foundation
import SQLite
import Testing

@testable import Store

@Suite("SQLite wrapper")
struct SQLiteConnectionTests {
  func connection() throws -> (SQLiteConnection, StoreFixture) {
    let fixture = try StoreFixture("sqlite")
    return (try SQLiteConnection(path: fixture.path, readOnly: false, create: true, busyTimeoutMs: 100), fixture)
  }

  @Test("Integers, reals, text with UTF-8 and NULL round-trip exactly through bind and column")
  func roundTrip() throws {
    let (db, fixture) = try connection()
    defer { fixture.directory.remove() }
    try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, n TEXT)")
    let text = "Grüße, 心拍 \"quoted\", with\nnewline"
    try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)").run([.integer(Int64.min), .real(0.1 + 0.2), .text(text), .null])
    let rows = try db.prepare("SELECT i, r, s, n FROM t").rows { ($0.int64(0), $0.double(1), $0.text(2), $0.isNull(3)) }
    #expect(rows.count == 1)
    #expect(rows[0].0 == Int64.min)
    #expect(rows[0].1 == 0.1 + 0.2)
    #expect(rows[0].2 == text)
    #expect(rows[0].3)
  }

  @Test("A constraint violation is a typed error with the extended code and the statement")
  func constraintError() throws {
    let (db, fixture) = try connection()
    defer { fixture.directory.remove() }
    try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    let insert = try db.cached("INSERT INTO t VALUES (?1)")
    try insert.run([.text("a")])
    #expect {
      try insert.run([.text("a")])
    } throws: { error in
      guard let error = error as? SQLiteError else { return false }
      // SQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT | (6 << 8) = 1555
      return error.isConstraint && error.extendedCode == 1555 && error.operation.contains("INSERT INTO t")
    }
    // The cached statement is usable again after the failure.
    try db.cached("INSERT INTO t VALUES (?1)").run([.text("b")])
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 2)
  }

  @Test("A transaction whose body throws leaves nothing behind and the connection can write again")
  func rollback() throws {
    let (db, fixture) = try connection()
    defer { fixture.directory.remove() }
    try db.execute("CREATE TABLE t (v INTEGER)")
    struct Boom: Error {}
    #expect(throws: Boom.self) {
      try db.transaction {
        try db.prepare("INSERT INTO t VALUES (1)").run()
        throw Boom()
      }
    }
    #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
    try db.transaction { try db.prepare("INSERT INTO t VALUES (2)").run() }
    #expect(try db.scalarInt("SELECT sum(v) FROM t") == 2)
  }

  @Test("Opening a directory or a missing parent fails with SQLITE_CANTOPEN and errno")
  func cannotOpen() throws {
    let fixture = try StoreFixture("sqlite")
    defer { fixture.directory.remove() }
    #expect {
      _ = try SQLiteConnection(path: fixture.directory.path + "/no/such/dir/x.db", readOnly: false, create: true, busyTimeoutMs: 0)
    } throws: { error in
      (error as? SQLiteError)?.isCannotOpen == true
    }
  }

  @Test("Using a closed connection is an error, not a crash")
  func closed() throws {
    let (db, fixture) = try connection()
    defer { fixture.directory.remove() }
    db.close()
    db.close()
    #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
  }
}
