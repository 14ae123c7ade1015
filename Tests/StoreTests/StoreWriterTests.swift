import Foundation
import Store
import SyncWire
import Testing

@Suite("Buffered writer: batching and failures")
struct StoreWriterTests {
  @Test("Beats arriving every second are committed in batches at most 2 s old, not one transaction per beat")
  func batching() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: fixture.path, clock: clock)
    let reader = try fixture.open(.reading)
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    var commits: [Double] = []
    var appended = 0
    for interval in intervals.prefix(400) {
      let step = generator.run([interval])  // advances the clock by the interval
      for record in step.records { writer.append(record) }
      let health = writer.append(step.ibis)
      appended += step.ibis.count
      if let last = health.lastCommitMonotonic, commits.last != last { commits.append(last) }
      // Never more than 2 s of beats waiting (plus the beat that triggers the commit).
      #expect(health.bufferedIBIs <= 4)
      #expect(try reader.status().ibis == appended - health.bufferedIBIs)
    }
    let gaps = zip(commits, commits.dropFirst()).map { $1 - $0 }
    #expect(gaps.allSatisfy { $0 >= 2 })
    #expect(commits.count < 400 / 2)
    writer.close()
    #expect(try reader.status().ibis == 400)
  }

  @Test("A quiet sensor does not hold rows back: flushIfDue commits once they are old enough")
  func flushIfDue() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: fixture.path, clock: clock)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals().prefix(100))
    writer.append(Array(session.ibis.prefix(1)))
    #expect(writer.flushIfDue().bufferedIBIs == 1)
    clock.advance(2)
    #expect(writer.flushIfDue().bufferedIBIs == 0)
    #expect(try fixture.open(.reading).status().ibis == 1)
  }

  @Test("Disk full (page limit): the writer makes room, keeps committing, and counts what it dropped")
  func diskFullPageLimit() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(
      path: fixture.path, clock: clock, options: MeasurementStore.Options(maxPageCount: 480),
      policy: StoreWriter.Policy(maxBufferedRows: 200))
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    var appended = 0
    var last: MeasurementRecord?
    for _ in 0..<2 {
      let hour = generator.run(intervals)
      last = hour.records.last
      for record in hour.records { writer.append(record) }
      for chunk in stride(from: 0, to: hour.ibis.count, by: 50) { writer.append(Array(hour.ibis[chunk..<min(chunk + 50, hour.ibis.count)])) }
      appended += hour.records.count
    }
    let health = writer.flush()
    #expect(health.isHealthy, "\(health)")
    let status = try writer.currentStore().status()
    #expect(status.measurements + status.droppedUnsyncedMeasurements == appended)
    #expect(status.retiredIBIs > 0)
    #expect(try writer.currentStore().integrityCheck() == ["ok"])
    // The newest windows are the ones kept.
    let newest = try writer.currentStore().measurements(MeasurementQuery(limit: 1, newestFirst: true))
    #expect(newest.first?.record == last)
  }

  @Test("A damaged file at start is moved aside untouched and a fresh one used: measuring goes on")
  func corruptAtOpen() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let junk = Data(repeating: 0xA5, count: 10_000)
    try junk.write(to: URL(fileURLWithPath: fixture.path))
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: fixture.path, clock: clock)
    var generator = SessionGenerator(clock: clock)
    let session = generator.run(try SessionGenerator.realIntervals().prefix(300))
    for record in session.records { writer.append(record) }
    let health = writer.close()
    #expect(health.isHealthy)
    #expect(health.movedAside.count == 1)
    let moved = try #require(health.movedAside.first)
    #expect(FileManager.default.contents(atPath: moved) == junk)
    #expect(try fixture.open(.reading).status().measurements == session.records.count)
  }

  @Test("A file damaged inside (pages zeroed) fails its next write as corrupt; the writer starts a new file and keeps the old")
  func corruptPages() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let intervals = try SessionGenerator.realIntervals()
    let first = generator.run(intervals.prefix(2000))
    let store = try fixture.open()
    try store.write(first.records, ibis: first.ibis)
    try store.checkpoint()
    store.close()
    // Zero every page after the schema page: the tables' b-trees are gone, the header still looks fine.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.path))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(count: Int(size) - 4096))
    try handle.close()
    let damaged = fixture.bytes()

    let writer = StoreWriter(path: fixture.path, clock: clock)
    let later = generator.run(intervals.dropFirst(2000).prefix(300))
    for record in later.records { writer.append(record) }
    let health = writer.close()
    #expect(health.isHealthy, "\(health)")
    let moved = try #require(health.movedAside.first)
    #expect(FileManager.default.contents(atPath: moved) == damaged)
    #expect(try fixture.open(.reading).measurements().map(\.record) == later.records)
  }

  @Test("When the store cannot be opened, rows wait in memory up to the bound, counted, and land once it can")
  func unavailableThenBack() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    // The database path's directory is a plain file: nothing can be created there.
    let blocker = fixture.directory.file("blocked")
    try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
    let path = blocker + "/stressmon.db"
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(
      path: path, clock: clock, policy: StoreWriter.Policy(retryIntervalSeconds: 30, memoryLimitMeasurements: 100))
    var generator = SessionGenerator(clock: clock)
    let records = generator.run(try SessionGenerator.realIntervals()).records  // ~340 windows over an hour
    var health = StoreWriter.Health()
    for record in records { health = writer.append(record) }
    #expect(health.errorCategory == "cannot_open")
    #expect(health.errorMessage?.contains(path) == true)
    #expect(health.bufferedMeasurements == 100)
    #expect(health.droppedMeasurements == records.count - 100)
    // The directory appears (someone fixed it): the next retry writes what memory kept.
    try FileManager.default.removeItem(atPath: blocker)
    try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
    clock.advance(31)
    health = writer.flushIfDue()
    #expect(health.isHealthy)
    #expect(try MeasurementStore(path: path, options: .reading).measurements().map(\.record) == Array(records.suffix(100)))
  }

  @Test("a row stamped after the writer's clock is counted (a bug upstream) and still stored, never silently")
  func rowAheadOfClockIsCounted() throws {
    let fixture = try StoreFixture("ahead")
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    let writer = StoreWriter(path: fixture.path, clock: clock)
    var generator = SessionGenerator(clock: clock)
    var records = generator.run(try SessionGenerator.realIntervals().prefix(200)).records
    #expect(writer.append(records[0]).aheadOfClock == 0, "stamped by the clock: not ahead")
    records[1].windowEnd = clock.reading().wall + 120
    records[1].windowStart = records[1].windowEnd - 60
    #expect(writer.append(records[1]).aheadOfClock == 1)
    let health = writer.close()
    #expect(health.aheadOfClock == 1 && health.keptMeasurements == 2)
  }
}
