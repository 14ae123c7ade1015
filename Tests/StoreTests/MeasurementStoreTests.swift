import Foundation
import Store
import StressModel
import SyncWire
import Testing

@Suite("Measurement store: writing and reading")
struct MeasurementStoreTests {
  @Test("An hour of real beats: every window and every IBI comes back exactly as written")
  func realHourRoundTrip() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals())
    #expect(session.records.count > 300)  // ~60 min of 10-s steps after the first minute
    #expect(session.ibis.count == 4684)

    let store = try fixture.open()
    // In batches of about two seconds' worth, as the writer would.
    var previous = -Double.infinity
    for chunk in stride(from: 0, to: session.ibis.count, by: 2) {
      let ibis = Array(session.ibis[chunk..<min(chunk + 2, session.ibis.count)])
      let until = ibis.last!.wall
      let records = session.records.filter { $0.windowEnd > previous && $0.windowEnd <= until }
      previous = until
      try store.write(records, ibis: ibis, clock: clock.reading())
    }
    let stored = try store.measurements()
    expectSame(stored.map(\.record), session.records)
    #expect(stored.allSatisfy { $0.clockState == .synchronised && $0.upload == .pending })
    expectSame(try store.ibis().map(\.ibi), session.ibis)
    let status = try store.status()
    #expect(status.measurements == session.records.count)
    #expect(status.ibis == 4684)
    #expect(status.outbox.pending == session.records.count)
  }

  @Test("a new store and its WAL are readable by their owner only (0600): they hold health data")
  func privateFiles() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let store = try fixture.open()
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(Array(try SessionGenerator.realIntervals().prefix(200)))
    try store.write(session.records, ibis: session.ibis, clock: clock.reading())
    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: fixture.path + suffix) {
      let mode = (try FileManager.default.attributesOfItem(atPath: fixture.path + suffix)[.posixPermissions] as? NSNumber)?.intValue
      #expect(mode == 0o600, "stressmon.db\(suffix)")
    }
  }

  @Test("since/until select by window end: since inclusive, until exclusive; newest first on request")
  func timeRange() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let records = generator.run(try SessionGenerator.realIntervals().prefix(600)).records
    let store = try fixture.open()
    try store.write(records)
    let since = records[3].windowEnd
    let until = records[8].windowEnd
    let middle = try store.measurements(MeasurementQuery(since: since, until: until))
    #expect(middle.map(\.record.id) == records[3..<8].map(\.id))
    let latest = try store.measurements(MeasurementQuery(limit: 2, newestFirst: true))
    #expect(latest.map(\.record.id) == [records[records.count - 1].id, records[records.count - 2].id])
  }

  @Test("Writing the same id again: an older or equal modifiedAt is ignored, a newer one replaces the row")
  func upsertByModifiedAt() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let original = generator.run(try SessionGenerator.realIntervals().prefix(150)).records[0]
    let store = try fixture.open()
    try store.write([original])
    try store.markUploaded(ids: [original.id], at: may2024 + 100)

    var stale = original
    stale.stressLevel = 99
    stale.modifiedAt -= 1
    try store.write([stale])
    try store.write([original])  // a retried batch: the same version again
    #expect(try store.measurement(id: original.id)?.record == original)
    #expect(try store.pendingUploads(limit: 10).isEmpty)

    var newer = original
    newer.stressLevel = 12
    newer.category = .relaxed
    newer.modifiedAt += 5
    try store.write([newer])
    #expect(try store.measurement(id: original.id)?.record == newer)
    #expect(try store.pendingUploads(limit: 10).map(\.id) == [original.id])
    #expect(try store.status().measurements == 1)
  }

  @Test("Uncategorised windows keep nil level, category and metrics")
  func uncategorised() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    var record = generator.run(try SessionGenerator.realIntervals().prefix(150)).records[0]
    record.stressLevel = nil
    record.category = nil
    record.sdnnMs = nil
    record.rmssdMs = nil
    record.heartRateBpm = nil
    record.quality = .noContact
    record.confidence = 0
    let store = try fixture.open()
    try store.write([record])
    #expect(try store.measurement(id: record.id)?.record == record)
  }

  @Test("A batch with a non-finite time is refused whole, with a message naming the row")
  func invalidBatch() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    var records = generator.run(try SessionGenerator.realIntervals().prefix(200)).records
    records[1].windowEnd = .nan
    let store = try fixture.open()
    #expect {
      try store.write(records)
    } throws: { error in
      (error as? StoreError)?.description.contains(records[1].id) == true
    }
    #expect(try store.status().measurements == 0)
  }

  @Test("Two connections: a reader sees what the writer committed")
  func twoConnections() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let records = generator.run(try SessionGenerator.realIntervals().prefix(300)).records
    let writer = try fixture.open()
    let reader = try fixture.open(.reading)
    try writer.write(Array(records.prefix(2)))
    #expect(try reader.measurements().count == 2)
    try writer.write(Array(records.dropFirst(2)))
    #expect(try reader.measurements().count == records.count)
    #expect(throws: StoreError.self) { try reader.write(records) }
  }
}
