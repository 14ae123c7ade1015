import DayReport
import StressModel
import SyncWire
import TestSupport

/// A day of measurement windows made from real RR series (`rr/` of the recordings, SharedData), the way the daemon makes
/// them: 60 s windows every 10 s, HRV metrics of the intervals inside, scored by `StressCalculator` against a
/// personal baseline computed by `BaselineCalculator` from the long series' own windows.
///
/// Sessions on 2024-03-12, local time:
/// - 08:30 pyhrv_nni_long (about 60 min), windows starting 1500-2099 s in left out (a 10-minute gap) and those
///   starting 2700-2879 s marked poor signal;
/// - 13:10 systole_rr (3.6 min); 16:40 pyhrv_nni_short (5 min);
/// - 19:00 pyhrv_nni_long again, windows starting 600-899 s marked no contact.
/// Non-good windows keep their (unreliable) HRV and HR figures, as a writer might: the report must not plot them.
enum DayFixture {
  static let day = LocalDay(year: 2024, month: 3, day: 12)!
  static let windowSeconds = 60.0
  static let stepSeconds = 10.0

  struct Session {
    var file: String
    var start: Double
    var omitted: Range<Double>?
    var unscored: (range: Range<Double>, quality: WindowQuality)?
  }

  static let morning = Session(
    file: "rr/pyhrv_nni_long.csv", start: day.instant(hour: 8) + 1800, omitted: 1500..<2100,
    unscored: (2700..<2880, .poorSignal))
  static let sessions = [
    morning,
    Session(file: "rr/systole_rr.csv", start: day.instant(hour: 13) + 600),
    Session(file: "rr/pyhrv_nni_short.csv", start: day.instant(hour: 16) + 2400),
    Session(file: "rr/pyhrv_nni_long.csv", start: day.instant(hour: 19), unscored: (600..<900, .noContact)),
  ]

  /// The windows of a series: (start offset in seconds, metrics) every `stepSeconds`.
  static func windows(_ file: String) throws -> [(offset: Double, metrics: HRVMetrics)] {
    let intervals = try SharedData.column(file)
    var beatTimes: [Double] = []
    var elapsed = 0.0
    for interval in intervals {
      elapsed += interval / 1000
      beatTimes.append(elapsed)
    }
    var result: [(Double, HRVMetrics)] = []
    var offset = 0.0
    var first = 0
    while offset + windowSeconds <= elapsed {
      // Intervals whose beat falls in [offset, offset + 60 s)
      while first < beatTimes.count && beatTimes[first] < offset { first += 1 }
      var last = first
      while last < beatTimes.count && beatTimes[last] < offset + windowSeconds { last += 1 }
      if let metrics = HRVMetrics(intervalsMs: Array(intervals[first..<last])) { result.append((offset, metrics)) }
      offset += stepSeconds
    }
    return result
  }

  static func baseline() throws -> PersonalBaseline {
    let windows = try windows(morning.file).map {
      BaselineCalculator.Window(
        time: morning.start + $0.offset + windowSeconds, hrvMs: $0.metrics.sdnnMs,
        heartRateBpm: $0.metrics.meanHeartRateBpm)
    }
    return BaselineCalculator().baseline(from: windows, now: windows.map(\.time).max() ?? 0)
  }

  /// Built once per test run (every suite draws the same day).
  static func records() throws -> [MeasurementRecord] { try cached.get() }

  private static let cached = Result { try build() }

  private static func build() throws -> [MeasurementRecord] {
    let baseline = try baseline()
    var records: [MeasurementRecord] = []
    for (sessionIndex, session) in sessions.enumerated() {
      for (offset, metrics) in try windows(session.file) {
        if let omitted = session.omitted, omitted.contains(offset) { continue }
        let quality = session.unscored.map { $0.range.contains(offset) ? $0.quality : .good } ?? .good
        let result = StressCalculator().result(
          hrvMs: metrics.sdnnMs, heartRateBpm: metrics.meanHeartRateBpm, baseline: baseline,
          evidence: .init(beats: metrics.intervals))
        let end = session.start + offset + windowSeconds
        records.append(MeasurementRecord(
          id: "fixture-\(sessionIndex)-\(Int(offset))", deviceId: "desk-1", windowStart: end - windowSeconds,
          windowEnd: end, bootId: "boot-\(sessionIndex)", monotonicEnd: end - day.start, clockSynchronised: true,
          stressLevel: quality == .good ? result.level : nil, category: quality == .good ? result.category : nil,
          confidence: quality == .good ? result.confidence : 0, sdnnMs: metrics.sdnnMs, rmssdMs: metrics.rmssdMs,
          heartRateBpm: metrics.meanHeartRateBpm, baselineHrvMs: baseline.hrvMs,
          restingHeartRateBpm: baseline.restingHeartRateBpm, baselinePersonal: baseline.isPersonal,
          quality: quality, beats: metrics.intervals, rejectedBeats: 0, modifiedAt: end))
      }
    }
    return records
  }
}
