import Foundation
@testable import Monitor
import Sensors
import Store
import Synchronization
import StressModel
import SyncWire
import Testing
import TestSupport

/// No row of the daemon is stamped after the clock, on any path: faster than real time the data is placed so that
/// it ends when the run started (a bounded run) or follows the wall clock (an endless source at N×). Each run here
/// checks every stored window and beat interval against the wall clock read after the run, and the writer's own
/// tripwire (`aheadOfClock`), which counts any row handed to the store stamped after its clock.
@Suite("Rows are never stamped ahead of the clock", .serialized)
struct TimeStampTests {
  static func wallNow() -> Double { Date().timeIntervalSince1970 }

  /// Every stored row (window and beat) at or before `now`; returns the windows, oldest first.
  static func expectNothingAhead(_ run: SimulatedRun, now: Double, _ label: String) throws -> [MeasurementRecord] {
    let store = try MeasurementStore(path: run.configuration.store.database, options: .reading)
    defer { store.close() }
    let rows = try store.measurements().map(\.record)
    #expect(!rows.isEmpty, "\(label): nothing stored")
    let ahead = rows.filter { max($0.windowEnd, $0.modifiedAt) > now }
    #expect(ahead.isEmpty, "\(label): \(ahead.count) windows after the clock, the last \(rows.last!.windowEnd - now) s")
    #expect(rows.allSatisfy { $0.windowStart <= $0.windowEnd })
    let beats = try store.ibis()
    #expect(beats.allSatisfy { $0.ibi.wall <= now }, "\(label): beat intervals after the clock")
    return rows
  }

  @Test("a bounded run at --speed max ends its data at the moment it started")
  func maxSpeedEndsAtStart() async throws {
    let run = try SimulatedRun("time-max")
    defer { run.directory.remove() }
    let started = Self.wallNow()
    let (summary, _) = try await run.run(speed: .max, duration: 600)
    let rows = try Self.expectNothingAhead(run, now: Self.wallNow(), "max, 600 s")
    #expect(summary.aheadOfClock == 0)
    // The last window ends on a step of the data's end: within a step (10 s) before the start, never after it.
    let last = try #require(rows.last)
    #expect(last.windowEnd <= started + 1)
    #expect(last.windowEnd >= started - 11, "placed \(started - last.windowEnd) s before the start")
    // and the data keeps its spacing: the first window ends about 540 s earlier (60 s window, 600 s of data)
    #expect(abs((last.windowEnd - rows[0].windowEnd) - (600 - 60)) < 11)
  }

  @Test("a bounded run at 40x keeps its data in the past while it plays")
  func pacedBoundedRun() async throws {
    let run = try SimulatedRun("time-paced")
    defer { run.directory.remove() }
    let started = Self.wallNow()
    let (summary, log) = try await run.run(speed: .times(40), duration: 120)
    let rows = try Self.expectNothingAhead(run, now: Self.wallNow(), "40x, 120 s")
    #expect(summary.aheadOfClock == 0)
    #expect(rows.last!.windowEnd <= started + 1)
    // Each window, as it was reported, was already in the past.
    for (record, _) in log.windows { #expect(record.windowEnd <= started + 1) }
  }

  @Test("an endless source at 40x without --duration: rows follow the wall clock, never ahead of it")
  func pacedEndlessRun() async throws {
    let run = try SimulatedRun("time-endless")
    defer { run.directory.remove() }
    let started = Self.wallNow()
    let (summary, _) = try await run.run(speed: .times(40), duration: nil) { event, monitor in
      if case .window(_, let window, _) = event, window.endSeconds >= 90 { monitor.stop(reason: "enough") }
    }
    let ended = Self.wallNow()
    let rows = try Self.expectNothingAhead(run, now: ended, "40x, endless")
    #expect(summary.aheadOfClock == 0)
    #expect(rows.count >= 4)
    // Stamped when produced: every window ends within the run.
    #expect(rows.allSatisfy { $0.windowEnd >= started - 2 && $0.windowEnd <= ended })
  }

  @Test("a replay at --speed max without --duration is placed by the recording's own length")
  func replayWithoutDuration() async throws {
    var run = try SimulatedRun("time-replay")
    defer { run.directory.remove() }
    let recording = SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv"
    run.configuration.measurement.source = "replay:" + recording
    let length = try ReplayPulseSource.dataSeconds(path: recording)
    let started = Self.wallNow()
    let (summary, _) = try await run.run(speed: .max, duration: nil)
    let rows = try Self.expectNothingAhead(run, now: Self.wallNow(), "replay at max")
    #expect(summary.aheadOfClock == 0)
    #expect(summary.dataSeconds <= length + 1)
    let last = try #require(rows.last)
    #expect(last.windowEnd <= started + 1 && last.windowEnd >= started - 11, "\(started - last.windowEnd) s")
  }
}

/// The time base itself, on a clock the test sets.
@Suite("TimeBase: how rows get their clock")
struct TimeBaseTests {
  final class FixedClock: StoreClock {
    let value: Mutex<ClockReading>
    init(_ reading: ClockReading) { value = Mutex(reading) }
    func reading() -> ClockReading { value.withLock { $0 } }
  }

  static let start = ClockReading(wall: 1_767_225_600, monotonic: 120, bootId: "b", synchronised: true)

  @Test("live: the clock now, less the data's lag")
  func live() {
    let clock = FixedClock(Self.start)
    let base = TimeBase(speed: .realtime, clock: clock, span: nil)
    let reading = base.reading(at: 96.4, streamSeconds: 100)
    #expect(abs(reading.wall - (Self.start.wall - 3.6)) < 1e-6)
    #expect(abs(reading.monotonic - (Self.start.monotonic - 3.6)) < 1e-6)
  }

  @Test("placed: the data ends at the start; an overshoot is held at the clock; monotonic never below 0")
  func placed() {
    let clock = FixedClock(Self.start)
    let base = TimeBase(speed: .max, clock: clock, span: 600)
    #expect(base.reading(at: 600, streamSeconds: 600).wall == Self.start.wall)
    #expect(base.reading(at: 60, streamSeconds: 600).wall == Self.start.wall - 540)
    #expect(base.reading(at: 600.3, streamSeconds: 600.3).wall == Self.start.wall, "clamped to the clock")
    // The board has been up 120 s; the data's first minutes fall before its boot: monotonic 0, never negative.
    #expect(base.reading(at: 60, streamSeconds: 600).monotonic == 0)
    #expect(base.reading(at: 590, streamSeconds: 600).monotonic == 110)
  }

  @Test("compressed: an endless source at N× is stamped when produced, its lag divided by N")
  func compressed() {
    let clock = FixedClock(Self.start)
    let base = TimeBase(speed: .times(10), clock: clock, span: nil)
    #expect(abs(base.reading(at: 70, streamSeconds: 73.6).wall - (Self.start.wall - 0.36)) < 1e-6)
    clock.value.withLock { $0.wall += 5 }
    #expect(base.reading(at: 120, streamSeconds: 120).wall == Self.start.wall + 5)
  }
}
