import Foundation
import Platform
import Store
import SyncWire
import TestSupport
import Testing

/// A small tmpfs mounted for one test, so that "disk full" and "read-only file system" are the kernel's own
/// ENOSPC and EROFS, not simulations. Needs CAP_SYS_ADMIN (root, as in CI's container); skipped otherwise.
struct ScratchMount {
  let directory: TemporaryDirectory
  var path: String { directory.path }

  static let available: Bool = {
    guard geteuid() == 0, let probe = try? ScratchMount(sizeKiB: 64) else { return false }
    probe.unmount()
    return true
  }()

  init(sizeKiB: Int) throws {
    directory = try TemporaryDirectory("mount")
    guard mount("tmpfs", directory.path, "tmpfs", 0, "size=\(sizeKiB)k,mode=0755") == 0 else {
      directory.remove()
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
    }
  }

  func remount(readOnly: Bool) throws {
    let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
    guard mount("tmpfs", path, "tmpfs", flags, nil) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)
    }
  }

  func unmount() {
    umount2(path, Int32(MNT_DETACH))
    directory.remove()
  }
}

@Suite("Real file-system failures (tmpfs)", .serialized, .enabled(if: ScratchMount.available, "needs root to mount a tmpfs"))
struct FileSystemFailureTests {
  @Test("Disk really full (ENOSPC): the writer frees room, keeps committing, counts every dropped row; nothing committed is lost silently")
  func diskFull() throws {
    let mount = try ScratchMount(sizeKiB: 2048)
    defer { mount.unmount() }
    let path = mount.path + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(
      path: path, clock: clock, options: MeasurementStore.Options(reserveBytes: 512 << 10),
      policy: StoreWriter.Policy(maxBufferedRows: 400, retryIntervalSeconds: 0))
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    var appended: [MeasurementRecord] = []
    var sawFull = false
    // Hours of data until windows not yet uploaded had to go, and two more hours on the full disk.
    var hoursAfterDrops = 0
    for _ in 0..<48 where hoursAfterDrops < 2 {
      let hour = generator.run(intervals)
      for record in hour.records { writer.append(record) }
      for chunk in stride(from: 0, to: hour.ibis.count, by: 100) {
        writer.append(Array(hour.ibis[chunk..<min(chunk + 100, hour.ibis.count)]))
      }
      appended += hour.records
      let status = try writer.currentStore().status()
      sawFull = sawFull || status.retiredIBIs > 0
      if status.droppedUnsyncedMeasurements > 0 { hoursAfterDrops += 1 }
    }
    let health = writer.flush()
    #expect(sawFull, "the tmpfs never filled: the test proves nothing")
    #expect(health.isHealthy, "\(health)")
    let store = try writer.currentStore()
    let status = try store.status()
    // Every window is either in the file or counted as dropped for lack of space, by the file and by the writer.
    #expect(status.droppedUnsyncedMeasurements > 0, "the disk never filled beyond the beats: the test proves little")
    #expect(status.measurements + status.droppedUnsyncedMeasurements + health.droppedMeasurements == appended.count)
    #expect(health.droppedForSpace == status.droppedUnsyncedMeasurements)
    #expect(try store.outboxStatus().droppedForSpace == status.droppedUnsyncedMeasurements)
    // What is kept is the newest, complete and in order.
    #expect(try store.measurements().map(\.record.id) == appended.suffix(status.measurements).map(\.id))
    #expect(try store.integrityCheck() == ["ok"])
    // And what the writer reports as stored is what the file holds, not what it once committed.
    let closed = writer.close()
    #expect(closed.keptMeasurements == status.measurements)
    #expect(closed.committedMeasurements > status.measurements)
  }

  @Test("A small card nearly full (2 MiB, 1.9 MiB free): the reserve fits the card and every row is kept")
  func smallCardKeepsEveryRow() throws {
    // The case: 200 s of data (15 windows, a few hundred beats) on a 2 MiB tmpfs with 100 KiB used.
    let mount = try ScratchMount(sizeKiB: 2048)
    defer { mount.unmount() }
    try Data(count: 100 << 10).write(to: URL(fileURLWithPath: mount.path + "/filler"))
    let path = mount.path + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: path, clock: clock)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals().prefix(300))
    for record in session.records { writer.append(record) }
    writer.append(session.ibis)
    let health = writer.close()
    #expect(health.isHealthy, "\(health)")
    let store = try MeasurementStore(path: path, options: .reading)
    defer { store.close() }
    let status = try store.status()
    #expect(session.records.count >= 15)
    #expect(status.measurements == session.records.count)
    #expect(status.ibis == session.ibis.count)
    #expect(status.droppedUnsyncedMeasurements == 0 && status.retiredIBIs == 0)
    #expect(health.keptMeasurements == session.records.count && health.droppedForSpace == 0)
    // The reserve was sized from the card (a sixty-fourth, at least 128 KiB), not the 2 MiB of a large card.
    let reserve = (try? FileManager.default.attributesOfItem(atPath: path + "-reserve")[.size] as? Int) ?? 0
    #expect(reserve == 128 << 10)
  }

  @Test("Nearly full at start (under twice the reserve free): a smaller reserve, and the newest rows kept")
  func nearlyFullAtStart() throws {
    let mount = try ScratchMount(sizeKiB: 2048)
    defer { mount.unmount() }
    // About 200 KiB free: less than twice the 128 KiB this card's reserve would be.
    try Data(count: 1_840 << 10).write(to: URL(fileURLWithPath: mount.path + "/filler"))
    let path = mount.path + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(
      path: path, clock: clock, policy: StoreWriter.Policy(maxBufferedRows: 400, retryIntervalSeconds: 0))
    let reserve = (try? FileManager.default.attributesOfItem(atPath: path + "-reserve")[.size] as? Int) ?? 0
    #expect(reserve >= 32 << 10 && reserve < 128 << 10, "a reserve that fits what is free: \(reserve) bytes")
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    var appended: [MeasurementRecord] = []
    var hoursAfterDrops = 0
    for _ in 0..<24 where hoursAfterDrops < 2 {
      let hour = generator.run(intervals)
      for record in hour.records { writer.append(record) }
      writer.append(hour.ibis)
      appended += hour.records
      if try writer.currentStore().status().droppedUnsyncedMeasurements > 0 { hoursAfterDrops += 1 }
    }
    let health = writer.flush()
    #expect(health.isHealthy, "\(health)")
    let store = try writer.currentStore()
    let status = try store.status()
    #expect(status.droppedUnsyncedMeasurements > 0, "the disk never filled: the test proves nothing")
    // Every window is in the file or counted as dropped, and the writer lost none of its own (it did before: with
    // no reserve to release, the clean-up could not run and the newest rows were the ones lost).
    #expect(health.droppedMeasurements == 0)
    #expect(status.measurements + status.droppedUnsyncedMeasurements == appended.count)
    #expect(try store.measurements().map(\.record.id) == appended.suffix(status.measurements).map(\.id))
    #expect(try store.integrityCheck() == ["ok"])
    writer.close()
  }

  @Test("Full, then space comes back: rows are dropped only while the disk is really full")
  func spaceComesBack() throws {
    let mount = try ScratchMount(sizeKiB: 2048)
    defer { mount.unmount() }
    let filler = mount.path + "/filler"
    try Data(count: 1_200 << 10).write(to: URL(fileURLWithPath: filler))
    let path = mount.path + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(
      path: path, clock: clock, policy: StoreWriter.Policy(maxBufferedRows: 400, retryIntervalSeconds: 0))
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    // Given a disk filled until windows not yet uploaded had to go
    var hours = 0
    while try writer.currentStore().status().droppedUnsyncedMeasurements == 0 && hours < 24 {
      let hour = generator.run(intervals)
      for record in hour.records { writer.append(record) }
      writer.append(hour.ibis)
      hours += 1
    }
    let droppedWhileFull = try writer.currentStore().status().droppedUnsyncedMeasurements
    #expect(droppedWhileFull > 0, "the disk never filled")
    #expect(try writer.currentStore().isDiskFull)
    // When space is freed on the disk (another file removed)
    unlink(filler)
    let before = try writer.currentStore().status().measurements
    let hour = generator.run(intervals)
    for record in hour.records { writer.append(record) }
    writer.append(hour.ibis)
    let health = writer.flush()
    // Then the next hour is stored whole, and nothing more is dropped
    #expect(health.isHealthy, "\(health)")
    let status = try writer.currentStore().status()
    #expect(status.droppedUnsyncedMeasurements == droppedWhileFull)
    #expect(status.measurements == before + hour.records.count)
    #expect(try !writer.currentStore().isDiskFull)
    writer.close()
  }

  @Test("Read-only file system: the daemon keeps measuring into memory, reports read_only, and writes everything once it is writable again")
  func readOnly() throws {
    let mount = try ScratchMount(sizeKiB: 8192)
    defer { mount.unmount() }
    let path = mount.path + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let before = generator.run(intervals.prefix(1000)).records
    let first = StoreWriter(path: path, clock: clock)
    for record in before { first.append(record) }
    #expect(first.close().isHealthy)

    // The card is remounted read-only (e.g. ext4 errors=remount-ro) and the daemon restarts.
    try mount.remount(readOnly: true)
    let writer = StoreWriter(path: path, clock: clock, policy: StoreWriter.Policy(retryIntervalSeconds: 5))
    let during = generator.run(intervals.dropFirst(1000).prefix(1000)).records
    var health = StoreWriter.Health()
    for record in during { health = writer.append(record) }
    #expect(health.errorCategory == "read_only", "\(health)")
    #expect(health.errorMessage?.contains("remount") == true)
    #expect(health.bufferedMeasurements == during.count)
    // Committed rows are still readable for history while read-only.
    #expect(try MeasurementStore(path: path, options: .reading).measurements().map(\.record) == before)

    try mount.remount(readOnly: false)
    clock.advance(6)
    health = writer.flushIfDue()
    #expect(health.isHealthy, "\(health)")
    writer.close()
    #expect(try MeasurementStore(path: path, options: .reading).measurements().map(\.record) == before + during)
  }
}
