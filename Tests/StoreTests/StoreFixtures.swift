import Foundation
import Store
import StressModel
import SyncWire
import Synchronization
import TestSupport
import Testing

/// A clock the test moves by hand: starts where it is told (often unsynchronised, in 1970), advances both clocks
/// together, jumps the wall clock on synchronisation, and reboots (new boot id, monotonic from zero).
final class TestClock: StoreClock {
  private let state: Mutex<ClockReading>

  init(wall: Double = 1_000, monotonic: Double = 5, bootId: String = "boot-a", synchronised: Bool = false) {
    state = Mutex(ClockReading(wall: wall, monotonic: monotonic, bootId: bootId, synchronised: synchronised))
  }

  func reading() -> ClockReading { state.withLock { $0 } }

  func advance(_ seconds: Double) {
    state.withLock {
      $0.wall += seconds
      $0.monotonic += seconds
    }
  }

  /// NTP steps the wall clock to `wall` and reports it synchronised.
  func synchronise(wall: Double) {
    state.withLock {
      $0.wall = wall
      $0.synchronised = true
    }
  }

  func reboot(bootId: String, wall: Double, monotonic: Double = 4, synchronised: Bool = false) {
    state.withLock { $0 = ClockReading(wall: wall, monotonic: monotonic, bootId: bootId, synchronised: synchronised) }
  }
}

/// Turns a real RR series into what the daemon would store: every beat an `IBIRecord`, every `step` seconds a
/// `MeasurementRecord` for the last `window` seconds (HRVMetrics + StressCalculator), stamped by the clock.
struct SessionGenerator {
  let clock: TestClock
  var deviceId = "test-device"
  var window = 60.0
  var step = 10.0
  var baseline = PersonalBaseline.default
  private var recent: [(time: Double, ibi: Double)] = []
  private var sinceWindow = 0.0
  private var beatTime = 0.0

  init(clock: TestClock) { self.clock = clock }

  /// The pyhrv 60-minute NN-interval series (4684 real intervals, ms).
  static func realIntervals() throws -> [Double] {
    try SharedData.column("rr/pyhrv_nni_long.csv")
  }

  mutating func run(_ intervals: some Sequence<Double>) -> (records: [MeasurementRecord], ibis: [IBIRecord]) {
    var records: [MeasurementRecord] = []
    var ibis: [IBIRecord] = []
    for interval in intervals {
      clock.advance(interval / 1000)
      beatTime += interval / 1000
      sinceWindow += interval / 1000
      let now = clock.reading()
      ibis.append(
        IBIRecord(
          wall: now.wall, monotonic: now.monotonic, bootId: now.bootId, clockSynchronised: now.synchronised,
          ibiMs: interval, segment: 0))
      recent.append((beatTime, interval))
      recent.removeAll { $0.time <= beatTime - window }
      if sinceWindow >= step, beatTime >= window {
        sinceWindow = 0
        records.append(record(now: now))
      }
    }
    return (records, ibis)
  }

  private func record(now: ClockReading) -> MeasurementRecord {
    let metrics = HRVMetrics(intervalsMs: recent.map(\.ibi))
    let result = metrics.map {
      StressCalculator().result(hrvMs: $0.sdnnMs, heartRateBpm: $0.meanHeartRateBpm, baseline: baseline)
    }
    return MeasurementRecord(
      id: UUID().uuidString.lowercased(), deviceId: deviceId, windowStart: now.wall - window, windowEnd: now.wall,
      bootId: now.bootId, monotonicEnd: now.monotonic, clockSynchronised: now.synchronised, stressLevel: result?.level,
      category: result?.category, confidence: result?.confidence ?? 0, sdnnMs: metrics?.sdnnMs,
      rmssdMs: metrics?.rmssdMs, heartRateBpm: metrics?.meanHeartRateBpm, baselineHrvMs: baseline.hrvMs,
      restingHeartRateBpm: baseline.restingHeartRateBpm, baselinePersonal: baseline.isPersonal,
      quality: metrics == nil ? .insufficientBeats : .good, beats: recent.count, rejectedBeats: 0, modifiedAt: now.wall)
  }
}

/// A fresh database path in its own temporary directory.
struct StoreFixture {
  let directory: TemporaryDirectory
  let path: String

  init(_ label: String = "store") throws {
    directory = try TemporaryDirectory(label)
    path = directory.file("stressmon.db")
  }

  func open(_ options: MeasurementStore.Options = .init()) throws -> MeasurementStore {
    try MeasurementStore(path: path, options: options)
  }

  func bytes(_ suffix: String = "") -> Data? { FileManager.default.contents(atPath: path + suffix) }
}

/// Compares two long arrays and reports the count or the first differing element, not the whole arrays.
func expectSame<T: Equatable>(_ actual: [T], _ expected: [T], sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(actual.count == expected.count, "count", sourceLocation: sourceLocation)
  if let index = (0..<min(actual.count, expected.count)).first(where: { actual[$0] != expected[$0] }) {
    Issue.record("first difference at \(index): \(actual[index]) != \(expected[index])", sourceLocation: sourceLocation)
  }
}

/// A synchronised wall time on 2024-05-01 for tests that need "now".
let may2024 = 1_714_521_600.0
