import StressModel

/// The hub's rules for one incoming row, kept beside the wire types so both sides can read them. A row that
/// breaks one is rejected with the sentence returned here, and the device quarantines it.
extension MeasurementRecord {
  /// Plausible bounds, wide enough for any real window and narrow enough to catch corrupt rows.
  /// 2020-01-01 is before any stressmon device existed; 2100 catches wall clocks set decades ahead.
  public static let plausibleEpochRange: ClosedRange<Double> = 1_577_836_800...4_102_444_800
  public static let plausibleHeartRateBpm: ClosedRange<Double> = 20...300
  public static let plausibleHRVMs: ClosedRange<Double> = 0...1000

  /// Why this row cannot be stored, or nil when it can. `deviceId` is checked by the caller (authorisation).
  public func validationProblem() -> String? {
    guard SyncIdentifiers.isValidRowId(id) else {
      return "id '\(id.prefix(40))' is not a lowercase RFC 4122 UUID"
    }
    guard clockSynchronised else {
      return "window was measured before the wall clock was synchronised; correct its times before upload"
    }
    let times: [(String, Double)] = [("window_start", windowStart), ("window_end", windowEnd), ("modified_at", modifiedAt)]
    for (name, value) in times where !(value.isFinite && Self.plausibleEpochRange.contains(value)) {
      return "\(name) \(value) is not a wall-clock time between 2020 and 2100"
    }
    guard windowEnd >= windowStart else { return "window_end is before window_start" }
    guard monotonicEnd.isFinite, monotonicEnd >= 0 else { return "monotonic_end must be a non-negative number" }
    guard !bootId.isEmpty, bootId.utf8.count <= 64 else { return "boot_id must be 1-64 characters" }
    guard confidence.isFinite, (0...1).contains(confidence) else { return "confidence must be within 0-1" }
    guard beats >= 0, rejectedBeats >= 0 else { return "beat counts must not be negative" }
    for (name, value) in [("sdnn_ms", sdnnMs), ("rmssd_ms", rmssdMs)] {
      if let value, !(value.isFinite && Self.plausibleHRVMs.contains(value)) {
        return "\(name) \(value) is outside 0-1000 ms"
      }
    }
    if let heartRateBpm, !(heartRateBpm.isFinite && Self.plausibleHeartRateBpm.contains(heartRateBpm)) {
      return "heart_rate_bpm \(heartRateBpm) is outside 20-300 bpm"
    }
    switch (stressLevel, category) {
    case (nil, nil):
      guard !quality.isCategorised else { return "a window of good quality needs stress_level and category" }
    case (let level?, let category?):
      guard quality.isCategorised else {
        return "a window of quality '\(quality.rawValue)' is uncategorised and must not carry a stress level"
      }
      guard level.isFinite, (0...100).contains(level) else { return "stress_level \(level) is outside 0-100" }
      guard StressCategory(level: level) == category else {
        return "category '\(category.rawValue)' does not match stress_level \(level) "
          + "(expected '\(StressCategory(level: level).rawValue)')"
      }
    default:
      return "stress_level and category must be both present or both absent"
    }
    return nil
  }
}
