import StressModel

/// The hub's rules for one incoming row, kept beside the wire types so both sides can read them. A row that
/// breaks one is rejected with the sentence returned here, and the device quarantines it. Every field is bounded:
/// a row that passes can be stored, drawn and summed without overflow, markup or a time that never goes stale.
extension MeasurementRecord {
  /// Plausible bounds, wide enough for any real window and narrow enough to catch corrupt rows.
  /// 2020-01-01 is before any stressmon device existed; 2100 catches wall clocks set decades ahead.
  public static let plausibleEpochRange: ClosedRange<Double> = 1_577_836_800...4_102_444_800
  public static let plausibleHeartRateBpm: ClosedRange<Double> = 20...300
  public static let plausibleHRVMs: ClosedRange<Double> = 0...1000
  /// A baseline HRV divides the window's HRV (nHRV), so it must be positive; the upper bound is the HRV bound.
  public static let plausibleBaselineHRVMs: ClosedRange<Double> = 1...1000
  /// The longest window: a day. Windows are a minute; longer ones are summaries, never beyond a day.
  public static let maxWindowSeconds: Double = 86_400
  /// CLOCK_BOOTTIME at a window's end: at most ten years of uptime.
  public static let maxMonotonicSeconds: Double = 10 * 366 * 86_400
  /// Beats a window can hold: 5 a second (300 bpm, the top of the heart-rate bound) plus a few at the edges,
  /// for clean and rejected beats each.
  public static let maxBeatsPerSecond: Double = 5
  public static let beatSlack = 10

  /// The most beats (clean or rejected) a window of this length can hold.
  public var maxBeats: Int {
    let seconds = min(max(windowEnd - windowStart, 0), Self.maxWindowSeconds)
    return Int(seconds * Self.maxBeatsPerSecond) + Self.beatSlack
  }

  /// Why this row cannot be stored, or nil when it can. `deviceId` is checked by the caller (authorisation).
  /// With `now` (the hub's clock, seconds since the Unix epoch), times more than `SyncAPI.maxClockSkew` past it
  /// are refused too.
  public func validationProblem(now: Double? = nil) -> String? {
    guard SyncIdentifiers.isValidRowId(id) else {
      return "id '\(id.prefix(40))' is not a lowercase RFC 4122 UUID"
    }
    guard clockSynchronised else {
      return "window was measured before the wall clock was synchronised; correct its times before upload"
    }
    if let problem = timeProblem(now: now) { return problem }
    guard monotonicEnd.isFinite, (0...Self.maxMonotonicSeconds).contains(monotonicEnd) else {
      return "monotonic_end must be 0-\(Int(Self.maxMonotonicSeconds)) seconds of uptime"
    }
    guard SyncIdentifiers.isValidBootId(bootId) else {
      return "boot_id must be 1-64 characters of A-Z a-z 0-9 . _ : - (the kernel's boot_id is a UUID)"
    }
    guard confidence.isFinite, (0...1).contains(confidence) else { return "confidence must be within 0-1" }
    let beatLimit = maxBeats
    guard (0...beatLimit).contains(beats), (0...beatLimit).contains(rejectedBeats) else {
      return "beats and rejected_beats must be within 0-\(beatLimit) for a window of this length (5 a second)"
    }
    for (name, value) in [("sdnn_ms", sdnnMs), ("rmssd_ms", rmssdMs)] {
      if let value, !(value.isFinite && Self.plausibleHRVMs.contains(value)) {
        return "\(name) \(value) is outside 0-1000 ms"
      }
    }
    if let heartRateBpm, !(heartRateBpm.isFinite && Self.plausibleHeartRateBpm.contains(heartRateBpm)) {
      return "heart_rate_bpm \(heartRateBpm) is outside 20-300 bpm"
    }
    guard baselineHrvMs.isFinite, Self.plausibleBaselineHRVMs.contains(baselineHrvMs) else {
      return "baseline_hrv_ms \(baselineHrvMs) is outside 1-1000 ms"
    }
    guard restingHeartRateBpm.isFinite, Self.plausibleHeartRateBpm.contains(restingHeartRateBpm) else {
      return "resting_heart_rate_bpm \(restingHeartRateBpm) is outside 20-300 bpm"
    }
    return scoreProblem()
  }

  // MARK: - Private

  private func timeProblem(now: Double?) -> String? {
    let times: [(String, Double)] = [("window_start", windowStart), ("window_end", windowEnd), ("modified_at", modifiedAt)]
    for (name, value) in times where !(value.isFinite && Self.plausibleEpochRange.contains(value)) {
      return "\(name) \(UTCTime.iso8601(value)) is not a wall-clock time between 2020 and 2100"
    }
    if let now {
      let limit = now + SyncAPI.maxClockSkew
      for (name, value) in times where value > limit {
        return "\(name) \(UTCTime.iso8601(value)) is \(Int(value - now)) s ahead of the hub's clock "
          + "(\(UTCTime.iso8601(now)); at most \(Int(SyncAPI.maxClockSkew)) s allowed); check the device's clock"
      }
    }
    guard windowEnd >= windowStart else { return "window_end is before window_start" }
    guard windowEnd - windowStart <= Self.maxWindowSeconds else { return "the window is longer than a day" }
    return nil
  }

  private func scoreProblem() -> String? {
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
