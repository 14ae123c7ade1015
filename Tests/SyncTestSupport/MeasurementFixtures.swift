import FoundationEssentials
import Platform
import StressModel
import SyncWire
import TestSupport

/// Measurement rows made from a real RR-interval recording (pyhrv's 4684-interval NN series in the shared data
/// set), scored with the project's own HRV and stress formulas: the rows a device would log, not invented
/// numbers. Deterministic: the same call gives the same rows (ids included).
public enum MeasurementFixtures {
  /// Intervals per window: about a minute of beats at rest.
  public static let intervalsPerWindow = 60
  /// 2026-01-01T00:00:00Z: the session the fixtures pretend to be.
  public static let startEpoch = 1_767_225_600.0

  /// `count` consecutive windows of `device`, sliding by 20 intervals and wrapping round the recording.
  public static func records(device: String, count: Int, salt: UInt64 = 0) throws -> [MeasurementRecord] {
    let intervals = try SharedData.column("rr/pyhrv_nni_long.csv")
    precondition(intervals.count > intervalsPerWindow * 2, "RR recording too short")
    var rows: [MeasurementRecord] = []
    rows.reserveCapacity(count)
    var clock = startEpoch
    let stride = 20
    for index in 0..<count {
      let start = (index * stride) % (intervals.count - intervalsPerWindow)
      let window = Array(intervals[start..<(start + intervalsPerWindow)])
      let duration = window.reduce(0, +) / 1000
      let metrics = HRVMetrics(intervalsMs: window)
      let windowStart = clock
      clock += duration
      var row = MeasurementRecord(
        id: uuid(device: device, index: index, salt: salt), deviceId: device, windowStart: windowStart,
        windowEnd: clock, bootId: "3f1c2a9e-77d4-4c61-9a53-0d6f1b2c8e10", monotonicEnd: clock - startEpoch + 12,
        clockSynchronised: true, stressLevel: nil, category: nil, confidence: 0, sdnnMs: nil, rmssdMs: nil,
        heartRateBpm: nil, baselineHrvMs: PersonalBaseline.default.hrvMs,
        restingHeartRateBpm: PersonalBaseline.default.restingHeartRateBpm, baselinePersonal: false,
        quality: .insufficientBeats, beats: window.count + 1, rejectedBeats: 0, modifiedAt: clock + 0.25)
      if let metrics {
        let result = StressCalculator().result(
          hrvMs: metrics.sdnnMs, heartRateBpm: metrics.meanHeartRateBpm, baseline: .default,
          evidence: .init(beats: window.count + 1))
        row.stressLevel = result.level
        row.category = StressCategory(level: result.level)
        row.confidence = result.confidence
        row.sdnnMs = metrics.sdnnMs
        row.rmssdMs = metrics.rmssdMs
        row.heartRateBpm = metrics.meanHeartRateBpm
        row.quality = .good
      }
      rows.append(row)
    }
    return rows
  }

  /// A lowercase RFC 4122 version-4-shaped UUID derived from (device, index, salt) with SplitMix64.
  public static func uuid(device: String, index: Int, salt: UInt64 = 0) -> String {
    var seed = salt &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
    for byte in device.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
    func next() -> UInt64 {
      seed &+= 0x9E37_79B9_7F4A_7C15
      var z = seed
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    let high = next()
    let low = next()
    func hex(_ value: UInt64, _ digits: Int) -> String {
      let text = String(value, radix: 16)
      return String(repeating: "0", count: max(0, digits - text.count)) + text.suffix(digits)
    }
    let timeLow = hex(high >> 32, 8)
    let timeMid = hex((high >> 16) & 0xFFFF, 4)
    let version = hex(0x4000 | (high & 0x0FFF), 4)
    let variant = hex(0x8000 | ((low >> 48) & 0x3FFF), 4)
    let node = hex(low & 0xFFFF_FFFF_FFFF, 12)
    return "\(timeLow)-\(timeMid)-\(version)-\(variant)-\(node)"
  }
}
