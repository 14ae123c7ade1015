import Foundation
import SQLite
import Testing

@testable import Store

@Suite("Store schema and migrations")
struct StoreSchemaTests {
  @Test("A new database is in WAL mode, marked as stressmon's and at the latest schema")
  func fresh() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let store = try fixture.open()
    #expect(try store.schemaVersion() == StoreSchema.latestVersion)
    store.close()
    let raw = try SQLiteConnection(path: fixture.path, readOnly: true, create: false, busyTimeoutMs: 0)
    #expect(try raw.scalarText("PRAGMA journal_mode") == "wal")
    #expect(try raw.scalarInt("PRAGMA application_id") == Int64(StoreSchema.applicationId))
    #expect(try raw.scalarInt("PRAGMA user_version") == Int64(StoreSchema.latestVersion))
  }

  @Test("A database from a newer stressmon is refused with both versions named, and left byte for byte unchanged")
  func newerRefused() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    try fixture.open().close()
    let newer = StoreSchema.latestVersion + 3
    let raw = try SQLiteConnection(path: fixture.path, readOnly: false, create: false, busyTimeoutMs: 0)
    try raw.execute("PRAGMA user_version = \(newer)")
    try raw.execute("PRAGMA journal_mode = DELETE")  // fold the WAL so the file alone holds everything
    raw.close()
    let before = fixture.bytes()

    #expect {
      _ = try fixture.open()
    } throws: { error in
      guard case .newerSchema(let path, let found, let supported) = error as? StoreError else { return false }
      let text = (error as? StoreError)?.description ?? ""
      return path == fixture.path && found == newer && supported == StoreSchema.latestVersion
        && text.contains("upgrade stressmon") && text.contains("schema \(newer)")
    }
    #expect(fixture.bytes() == before)
    #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"))
  }

  @Test("Another program's SQLite file is refused as not a stressmon database")
  func foreign() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let raw = try SQLiteConnection(path: fixture.path, readOnly: false, create: true, busyTimeoutMs: 0)
    try raw.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    raw.close()
    #expect {
      _ = try fixture.open()
    } throws: { error in
      if case .notAStressmonDatabase = error as? StoreError { return true }
      return false
    }
  }

  @Test("An upgrade applies only the new step, keeps the rows, and is idempotent on reopen")
  func upgrade() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals().prefix(200))
    let v1 = try fixture.open()
    try v1.write(session.records, ibis: session.ibis, clock: clock.reading())
    v1.close()

    let step2 = SchemaMigration(
      version: StoreSchema.latestVersion + 1, summary: "test: a notes column",
      statements: ["ALTER TABLE measurements ADD COLUMN note TEXT"])
    let options = MeasurementStore.Options(migrations: StoreSchema.migrations + [step2])
    let v2 = try fixture.open(options)
    #expect(try v2.schemaVersion() == step2.version)
    expectSame(try v2.measurements().map(\.record), session.records)
    v2.close()
    let again = try fixture.open(options)
    #expect(try again.schemaVersion() == step2.version)
    again.close()
    // And the older binary now refuses the file.
    #expect(throws: StoreError.self) { try fixture.open() }
  }

  @Test("A file that is not a database at all is reported as damaged, naming the file")
  func garbage() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let junk = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    try junk.write(to: URL(fileURLWithPath: fixture.path))
    #expect {
      _ = try fixture.open()
    } throws: { error in
      guard case .corrupt(let path, _) = error as? StoreError else { return false }
      return path == fixture.path && (error as! StoreError).description.contains("nothing was deleted")
    }
    #expect(fixture.bytes() == junk)
  }

  @Test("Reading a missing database does not create it")
  func missing() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    #expect {
      _ = try fixture.open(.reading)
    } throws: { error in
      if case .missing = error as? StoreError { return true }
      return false
    }
    #expect(!FileManager.default.fileExists(atPath: fixture.path))
  }
}
