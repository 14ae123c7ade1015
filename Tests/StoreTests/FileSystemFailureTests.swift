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
    for _ in 0..<16 {
      let hour = generator.run(intervals)
      for record in hour.records { writer.append(record) }
      for chunk in stride(from: 0, to: hour.ibis.count, by: 100) {
        writer.append(Array(hour.ibis[chunk..<min(chunk + 100, hour.ibis.count)]))
      }
      appended += hour.records
      let status = try writer.currentStore().status()
      sawFull = sawFull || status.retiredIBIs > 0
    }
    let health = writer.flush()
    #expect(sawFull, "the tmpfs never filled: the test proves nothing")
    #expect(health.isHealthy, "\(health)")
    let store = try writer.currentStore()
    let status = try store.status()
    // Every window is either in the file or counted as dropped for lack of space.
    #expect(status.measurements + status.droppedUnsyncedMeasurements + health.droppedMeasurements == appended.count)
    // What is kept is the newest, complete and in order.
    #expect(try store.measurements().map(\.record.id) == appended.suffix(status.measurements).map(\.id))
    #expect(try store.integrityCheck() == ["ok"])
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
