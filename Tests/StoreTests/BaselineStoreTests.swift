import Foundation
import Store
import StressModel
import SyncWire
import Testing

@Suite("Baseline from stored windows")
struct BaselineStoreTests {
  let calculator = BaselineCalculator()

  /// An hour of real windows, stored.
  func stored(_ fixture: StoreFixture) throws -> (MeasurementStore, [MeasurementRecord], TestClock) {
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let records = generator.run(try SessionGenerator.realIntervals()).records
    let store = try fixture.open()
    try store.write(records)
    return (store, records, clock)
  }

  @Test("The stored baseline is exactly what the calculator makes of the same windows, and it is recorded")
  func matchesCalculator() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, records, clock) = try stored(fixture)
    #expect(try store.currentBaseline() == .default)
    let now = clock.reading().wall
    let computed = try #require(try store.refreshBaselineIfDue(calculator, now: now))
    let expected = calculator.baseline(
      from: records.compactMap { record in
        guard record.quality == .good, let hrv = record.sdnnMs, let hr = record.heartRateBpm else { return nil }
        return BaselineCalculator.Window(time: record.windowEnd, hrvMs: hrv, heartRateBpm: hr)
      }, now: now)
    #expect(computed == expected)
    #expect(computed.isPersonal)
    // pyhrv's long series: SDNN over 60-s windows sits between 40 and 120 ms, resting HR in 60-80 bpm.
    #expect((40...120).contains(computed.hrvMs))
    #expect((55...85).contains(computed.restingHeartRateBpm))
    #expect(try store.currentBaseline() == computed)
    #expect(try store.baselineHistory().map(\.event) == [.computed])
  }

  @Test("Not recomputed until a week passes or enough new windows arrive")
  func refreshRule() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, _, clock) = try stored(fixture)
    let now = clock.reading().wall
    try store.refreshBaselineIfDue(calculator, now: now)
    #expect(try store.refreshBaselineIfDue(calculator, now: now + 86_400) == nil)
    let weekLater = try store.refreshBaselineIfDue(calculator, now: now + 7 * 86_400)
    // A week later the hour of windows is still inside the 30-day look-back: same windows, new computedAt.
    #expect(weekLater?.computedAt == now + 7 * 86_400)
    #expect(try store.baselineHistory().count == 2)
  }

  @Test("Reset: the default applies again, only newer windows count, and the history keeps both")
  func reset() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let (store, _, clock) = try stored(fixture)
    let now = clock.reading().wall
    let before = try store.recomputeBaseline(calculator, now: now)
    try store.resetBaseline(at: now + 1)
    #expect(try store.currentBaseline() == .default)
    // Nothing new since the reset: not due, and a forced computation finds no windows.
    #expect(try store.refreshBaselineIfDue(calculator, now: now + 2) == nil)
    #expect(try store.recomputeBaseline(calculator, now: now + 2) == .default)
    let history = try store.baselineHistory()
    #expect(history.map(\.event) == [.computed, .reset, .computed])
    #expect(history.last?.baseline == before)

    // 40 more real windows after the reset: enough for a new personal baseline from them alone.
    var generator = SessionGenerator(clock: clock)
    let newer = generator.run(try SessionGenerator.realIntervals().prefix(700)).records
    try store.write(newer)
    let fresh = try #require(try store.refreshBaselineIfDue(calculator, now: clock.reading().wall))
    #expect(fresh.isPersonal)
    #expect(fresh.windowCount <= newer.count)
  }

  @Test("While learning, too few windows keep the default and do not spam the history")
  func learning() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let store = try fixture.open()
    let intervals = try SessionGenerator.realIntervals()
    let few = generator.run(intervals.prefix(300)).records  // ~3 windows
    try store.write(few)
    #expect(try store.refreshBaselineIfDue(calculator, now: clock.reading().wall) == nil)
    #expect(try store.baselineHistory().isEmpty)
  }

  @Test("A try that kept the default is repeated with the next good window, and not again without one")
  func retryAfterShortfall() throws {
    let fixture = try StoreFixture()
    defer { fixture.directory.remove() }
    let clock = TestClock(wall: may2024, synchronised: true)
    var generator = SessionGenerator(clock: clock)
    let store = try fixture.open()
    let intervals = try SessionGenerator.realIntervals()
    try store.write(generator.run(intervals.prefix(1_200)).records)
    // A calculator that cannot be satisfied: every try keeps the default.
    let strict = BaselineCalculator(minimumWindows: 100_000)
    #expect(try store.recomputeBaseline(strict, now: clock.reading().wall) == .default)
    #expect(try store.refreshBaselineIfDue(strict, now: clock.reading().wall) == nil)
    let more = generator.run(intervals.dropFirst(1_200).prefix(150)).records
    #expect(more.contains { $0.quality == .good })
    try store.write(more)
    #expect(try store.refreshBaselineIfDue(strict, now: clock.reading().wall) == .default)
    #expect(try store.refreshBaselineIfDue(strict, now: clock.reading().wall) == nil)
    #expect(try store.baselineHistory().map(\.event) == [.computed, .computed])
  }
}
