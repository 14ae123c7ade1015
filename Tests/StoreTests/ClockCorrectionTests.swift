import Foundation
import Store
import SyncWire
import TestSupport
import Testing

@Suite("Clock: rows measured before synchronisation")
struct ClockCorrectionTests {
  @Test("Unsynchronised 1970 clock, then NTP jumps it: rows are corrected from the monotonic clock, then uploaded")
  func correctedAfterJump() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    // Given a Pi without RTC: boots with its wall clock in 1970, unsynchronised.
    let clock = TestClock(wall: 1_000, monotonic: 5, bootId: "boot-1", synchronised: false)
    let store = try fixture.open()
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let before = generator.run(intervals.prefix(600))
    try store.write(before.records, ibis: before.ibis, clock: clock.reading())

    // Then they wait: not uploaded, counted as waiting.
    #expect(try store.pendingUploads(limit: 500).isEmpty)
    #expect(try store.outboxStatus().waitingForClock == before.records.count)
    #expect(try store.measurements().allSatisfy { $0.clockState == .waiting && $0.upload == .waitingForClock })

    // When NTP steps the clock to May 2024 (monotonic keeps counting) and the writer next looks at the clock.
    clock.advance(7)
    clock.synchronise(wall: may2024)
    let sync = clock.reading()
    try store.observeClock(sync)

    // Then wall = sync_wall − (sync_monotonic − row_monotonic) for every earlier row, durations kept.
    let corrected = try store.measurements()
    #expect(corrected.count == before.records.count)
    for (row, original) in zip(corrected, before.records) {
      let expectedEnd = sync.wall - (sync.monotonic - original.monotonicEnd)
      #expect(abs(row.record.windowEnd - expectedEnd) < 1e-6)
      #expect(abs((row.record.windowEnd - row.record.windowStart) - 60) < 1e-6)
      #expect(row.recordedWindowEnd == original.windowEnd)  // what the board believed is kept
      #expect(row.clockState == .corrected && row.record.clockSynchronised)
      #expect(row.upload == .pending)
    }
    let ibis = try store.ibis()
    for (ibi, original) in zip(ibis, before.ibis) {
      #expect(abs(ibi.ibi.wall - (sync.wall - (sync.monotonic - original.monotonic))) < 1e-6)
      #expect(ibi.clockState == .corrected)
    }
    // And they are uploaded oldest first, with their corrected times.
    let pending = try store.pendingUploads(limit: 1000)
    #expect(pending.map(\.id) == before.records.map(\.id))
    #expect(pending.allSatisfy { $0.windowEnd > may2024 - 600 && $0.windowEnd < may2024 })
    #expect(try store.outboxStatus().waitingForClock == 0)

    // Later rows of the same boot arrive synchronised and follow on seamlessly.
    let after = generator.run(intervals.dropFirst(600).prefix(200))
    try store.write(after.records, ibis: after.ibis, clock: clock.reading())
    let all = try store.measurements()
    #expect(zip(all, all.dropFirst()).allSatisfy { $0.record.windowEnd < $1.record.windowEnd })
  }

  @Test("A synchronised row is itself a sync point: earlier rows of its boot are corrected without a clock reading")
  func syncFromRecord() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: 50_000, monotonic: 30, bootId: "boot-1", synchronised: false)
    let store = try fixture.open()
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let early = generator.run(intervals.prefix(300)).records
    try store.write(early)
    clock.synchronise(wall: may2024)
    let late = generator.run(intervals.dropFirst(300).prefix(100)).records
    try store.write(late)
    let anchor = late[0]
    let rows = try store.measurements(MeasurementQuery(until: anchor.windowEnd))
    #expect(rows.count == early.count)
    for (row, original) in zip(rows, early) {
      #expect(abs(row.record.windowEnd - (anchor.windowEnd - (anchor.monotonicEnd - original.monotonicEnd))) < 1e-6)
    }
  }

  @Test("A boot that ended without ever synchronising: its rows are kept and shown, marked unresolved, never uploaded")
  func earlierBootUnresolved() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: 2_000, monotonic: 5, bootId: "boot-1", synchronised: false)
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let first = generator.run(intervals.prefix(300))
    let store1 = try fixture.open()
    try store1.write(first.records, ibis: first.ibis, clock: clock.reading())
    store1.close()

    // Power cut; the next boot synchronises. Boot 1's monotonic times mean nothing in boot 2.
    clock.reboot(bootId: "boot-2", wall: may2024, monotonic: 4, synchronised: true)
    let store2 = try fixture.open()
    try store2.observeClock(clock.reading())
    let second = generator.run(intervals.dropFirst(300).prefix(300))
    try store2.write(second.records, ibis: second.ibis, clock: clock.reading())

    let rows = try store2.measurements()
    let unresolved = rows.filter { $0.record.bootId == "boot-1" }
    #expect(unresolved.count == first.records.count)
    #expect(unresolved.allSatisfy { $0.clockState == .unresolved && $0.upload == .clockUnresolved })
    #expect(unresolved.map(\.record.windowEnd) == first.records.map(\.windowEnd))  // the board's guess, unchanged
    #expect(try store2.pendingUploads(limit: 1000).map(\.id) == second.records.map(\.id))
    let status = try store2.status()
    #expect(status.clockUnresolved == first.records.count)
    #expect(status.outbox.waitingForClock == 0)
    #expect(try store2.ibis().filter { $0.ibi.bootId == "boot-1" }.allSatisfy { $0.clockState == .unresolved })
  }

  @Test("Once a boot has a sync point, later unsynchronised rows (kernel lost NTP) are placed from it at once")
  func unsyncAfterSync() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, monotonic: 100, bootId: "boot-1", synchronised: true)
    let store = try fixture.open()
    try store.observeClock(clock.reading())
    let anchor = clock.reading()
    // The kernel flags the clock unsynchronised after hours without NTP; the wall clock also drifted 3 s.
    let drifted = TestClock(wall: may2024 + 3, monotonic: 100, bootId: "boot-1", synchronised: false)
    var generator = SessionGenerator(clock: drifted)
    let rows = generator.run(try SessionGenerator.realIntervals().prefix(200)).records
    try store.write(rows)
    let stored = try store.measurements()
    #expect(stored.allSatisfy { $0.clockState == .corrected })
    for (row, original) in zip(stored, rows) {
      #expect(abs(row.record.windowEnd - (anchor.wall - (anchor.monotonic - original.monotonicEnd))) < 1e-6)
    }
    #expect(try store.pendingUploads(limit: 100).count == rows.count)
  }

  @Test("The system clock reads this machine's boot id, CLOCK_BOOTTIME and the kernel's sync status")
  func systemClock() throws {
    let clock = SystemStoreClock()
    let first = clock.reading()
    let bootId = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(first.bootId == bootId)
    var uptime = timespec()
    clock_gettime(CLOCK_BOOTTIME, &uptime)
    #expect(abs(first.monotonic - Double(uptime.tv_sec)) < 2)
    #expect(abs(first.wall - Date().timeIntervalSince1970) < 2)
    let second = clock.reading()
    #expect(second.monotonic >= first.monotonic)
    // A flag file that exists counts as synchronised, whatever the kernel says.
    let directory = try TemporaryDirectory("clock")
    defer { directory.remove() }
    let flag = try directory.write("synchronized", "")
    #expect(SystemStoreClock(timesyncFlagPath: flag).isSynchronised())
    #expect(SystemStoreClock(assumeSynchronised: true).reading().synchronised)
    // Without /proc, each process gets its own boot id so earlier runs are never taken for this boot.
    let noProc = SystemStoreClock(bootIdPath: directory.file("missing"))
    #expect(noProc.bootId.hasPrefix("unknown-") && noProc.bootId != SystemStoreClock(bootIdPath: directory.file("x")).bootId)
  }
}
