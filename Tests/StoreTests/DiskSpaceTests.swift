import Foundation
import Store
import SyncWire
import TestSupport
import Testing

/// What the store believes about free space. Only a write that fails for want of space means the disk is full:
/// statvfs is only advice, and some file systems (FUSE, network mounts) answer 0 free blocks while writes succeed.
@Suite("Disk space: only a failed write means full")
struct DiskSpaceTests {
  @Test("a file system that reports 0 free blocks while writes succeed: nothing is deleted, nothing dropped")
  func zeroFreeBlocksIsNotFull() throws {
    let fixture = try StoreFixture("zero-free")
    defer { fixture.directory.remove() }
    var options = MeasurementStore.Options()
    options.diskSpace = { _ in DiskSpace(totalBytes: 0, availableBytes: 0) }
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: fixture.path, clock: clock, options: options)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals())
    for record in session.records { writer.append(record) }
    writer.append(session.ibis)
    let health = writer.close()
    #expect(health.isHealthy)
    let store = try fixture.open(.reading)
    defer { store.close() }
    let status = try store.status()
    #expect(status.measurements == session.records.count)
    #expect(status.ibis == session.ibis.count)
    #expect(status.droppedUnsyncedMeasurements == 0 && status.retiredIBIs == 0 && status.retiredMeasurements == 0)
    #expect(health.keptMeasurements == session.records.count)
    // No reserve either: a file system that says it is full gets none (it would not be believed to have room).
    #expect(access(fixture.path + "-reserve", F_OK) != 0)
  }

  @Test("the reserve is a sixty-fourth of the file system, 128 KiB to the configured ceiling", arguments: [
    (Int64(2 << 20), Int64(128 << 10)),
    (Int64(64 << 20), Int64(1 << 20)),
    (Int64(16) << 30, Int64(2 << 20)),
    (Int64(0), Int64(2 << 20)),
  ])
  func reserveFollowsTheCard(fileSystem: Int64, reserve: Int64) {
    #expect(MeasurementStore.reserveSize(maximum: 2 << 20, fileSystemBytes: fileSystem) == reserve)
  }

  @Test("a store whose page limit is reached drops the oldest unsynced windows only as far as the write needs")
  func pageLimitDropsFewRows() throws {
    let fixture = try StoreFixture("page-limit")
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var options = MeasurementStore.Options(reserveBytes: 0)
    options.maxPageCount = 400
    let writer = StoreWriter(path: fixture.path, clock: clock, options: options)
    var generator = SessionGenerator(clock: clock)
    var appended: [MeasurementRecord] = []
    let intervals = try SessionGenerator.realIntervals()
    while try writer.currentStore().status().droppedUnsyncedMeasurements == 0 && appended.count < 20_000 {
      let hour = generator.run(intervals)
      for record in hour.records { writer.append(record) }
      appended += hour.records
    }
    let health = writer.flush()
    #expect(health.isHealthy, "\(health)")
    let status = try writer.currentStore().status()
    #expect(status.droppedUnsyncedMeasurements > 0)
    // Each full write frees a few rows (8 at a time until the write fits), never a block of 500 at once.
    #expect(status.droppedUnsyncedMeasurements < 500, "\(status.droppedUnsyncedMeasurements) dropped")
    #expect(status.measurements + status.droppedUnsyncedMeasurements == appended.count)
    #expect(try writer.currentStore().measurements().map(\.record.id) == appended.suffix(status.measurements).map(\.id))
    writer.close()
  }
}
