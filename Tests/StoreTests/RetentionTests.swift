import Foundation
import Store
import SyncWire
import Testing

@Suite("Retention by age and size; disk-full clean-up")
struct RetentionTests {
  /// Three hours of real windows and beats, stored; the first `uploaded` windows acknowledged by the hub.
  func filled(_ fixture: StoreFixture, uploaded: Int) throws -> (MeasurementStore, [MeasurementRecord], TestClock) {
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let store = try fixture.open()
    var records: [MeasurementRecord] = []
    for _ in 0..<3 {
      let hour = generator.run(intervals)
      try store.write(hour.records, ibis: hour.ibis)
      records += hour.records
    }
    try store.markUploaded(ids: records.prefix(uploaded).map(\.id), at: clock.reading().wall)
    return (store, records, clock)
  }

  @Test("By age: old uploaded windows and old beats go; old windows not yet on the hub stay")
  func byAge() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, records, clock) = try filled(fixture, uploaded: 500)
    let now = clock.reading()
    // Keep two hours: everything measured in the first hour is "old".
    let policy = RetentionPolicy(measurementMaxAgeSeconds: now.wall - records[0].windowEnd - 3600, ibiMaxAgeSeconds: 2 * 3600)
    let cutoff = now.wall - policy.measurementMaxAgeSeconds
    let report = try store.applyRetention(policy, clock: now)
    let expectedGone = records.prefix(500).filter { $0.windowEnd < cutoff }
    #expect(report.retiredMeasurements == expectedGone.count)
    #expect(report.retiredMeasurements > 0)
    let remaining = Set(try store.measurements().map(\.record.id))
    #expect(expectedGone.allSatisfy { !remaining.contains($0.id) })
    #expect(records.dropFirst(500).allSatisfy { remaining.contains($0.id) })  // pending: all kept
    #expect(try store.ibis().allSatisfy { $0.ibi.wall >= now.wall - 2 * 3600 })
    #expect(try store.status().retiredMeasurements == report.retiredMeasurements)
  }

  @Test("By age only with a synchronised clock: an unsynchronised 'now' deletes nothing")
  func ageNeedsClock() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, records, _) = try filled(fixture, uploaded: 100)
    let wrongNow = ClockReading(wall: may2024 + 10 * 365 * 86_400, monotonic: 1, bootId: "boot-a", synchronised: false)
    let report = try store.applyRetention(RetentionPolicy(measurementMaxAgeSeconds: 1, ibiMaxAgeSeconds: 1), clock: wrongNow)
    #expect(report.retiredMeasurements == 0 && report.retiredIBIs == 0)
    #expect(try store.status().measurements == records.count)
  }

  @Test("By size: beats go first, then uploaded windows; windows not on the hub are kept even over the limit")
  func bySize() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, records, clock) = try filled(fixture, uploaded: 300)
    let before = try store.status()
    let report = try store.applyRetention(RetentionPolicy(maxDatabaseBytes: 64 << 10, chunkRows: 500), clock: clock.reading())
    let after = try store.status()
    #expect(after.ibis == 0)
    #expect(after.uploaded == 0)
    #expect(report.retiredIBIs == before.ibis && report.retiredMeasurements == 300)
    #expect(after.outbox.pending == records.count - 300)
    #expect(report.overLimit)  // what is left is not on the hub yet: kept, and said so
    #expect(after.droppedUnsyncedMeasurements == 0)
  }

  @Test("Disk full: beats, then uploaded, then the oldest unsynced windows go, counted")
  func makeRoom() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, records, _) = try filled(fixture, uploaded: 10)
    let used = try store.status().usedBytes
    let report = try store.makeRoom(bytes: used - 8192, chunkRows: 50)
    #expect(report.retiredMeasurements == 10)
    #expect(report.droppedUnsyncedMeasurements > 0)
    let left = try store.measurements().map(\.record.id)
    // Oldest first: what is left is the newest tail, in order.
    #expect(left == Array(records.suffix(left.count).map(\.id)))
    #expect(try store.status().droppedUnsyncedMeasurements == report.droppedUnsyncedMeasurements)
    #expect(try store.integrityCheck() == ["ok"])
  }
}
