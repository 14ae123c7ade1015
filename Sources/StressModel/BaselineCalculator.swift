/// Computes the personal baseline from stored HRV windows (seeds' BaselineCalculator, DESIGN.md rules):
/// the last 30 days of valid windows, HRV outliers removed with Tukey's 1.5×IQR fences, mean HRV, resting HR as
/// the 10th percentile of window heart rates; at least 30 windows, else the default baseline.
public struct BaselineCalculator: Sendable {
  /// One stored measurement window as the baseline sees it.
  public struct Window: Sendable, Equatable {
    /// Seconds since the Unix epoch (end of the window).
    public var time: Double
    public var hrvMs: Double
    public var heartRateBpm: Double

    public init(time: Double, hrvMs: Double, heartRateBpm: Double) {
      self.time = time
      self.hrvMs = hrvMs
      self.heartRateBpm = heartRateBpm
    }
  }

  // MARK: - Properties

  /// How far back windows count (seconds). Default 30 days.
  public var lookbackSeconds: Double
  /// Fewer windows than this (after filtering) → the default baseline.
  public var minimumWindows: Int
  /// A baseline older than this is recomputed (seconds). Default 7 days.
  public var refreshAgeSeconds: Double
  /// This many new windows since the last computation also trigger a recomputation.
  public var refreshNewWindows: Int

  // MARK: - Initialization

  public init(
    lookbackSeconds: Double = 30 * 86_400,
    minimumWindows: Int = 30,
    refreshAgeSeconds: Double = 7 * 86_400,
    refreshNewWindows: Int = 360
  ) {
    self.lookbackSeconds = lookbackSeconds
    self.minimumWindows = minimumWindows
    self.refreshAgeSeconds = refreshAgeSeconds
    self.refreshNewWindows = refreshNewWindows
  }

  // MARK: - Public

  /// The baseline at time `now` from `windows` (any order). Windows outside (now − lookback, now], or with an
  /// invalid HRV (≤ 20 ms, the seeds' validity floor) or implausible HR (outside 40-180 bpm) are ignored.
  public func baseline(from windows: [Window], now: Double) -> PersonalBaseline {
    let recent = windows.filter {
      $0.time > now - lookbackSeconds && $0.time <= now
        && $0.hrvMs > StressCalculator.minimumValidHRVMs
        && StressCalculator.plausibleHeartRate.contains($0.heartRateBpm)
    }
    guard recent.count >= minimumWindows else { return .default }
    let hrvs = Statistics.removingOutliers(recent.map { $0.hrvMs })
    guard hrvs.count >= minimumWindows, let meanHRV = Statistics.mean(hrvs),
      let resting = Statistics.percentile(recent.map { $0.heartRateBpm }, 10)
    else { return .default }
    return PersonalBaseline(
      hrvMs: meanHRV, restingHeartRateBpm: resting, isPersonal: true, windowCount: hrvs.count, computedAt: now)
  }

  /// Whether a baseline computed at `computedAt` should be recomputed at `now`, given `newWindows` stored since.
  /// A default (never computed) baseline is always due.
  public func isDue(computedAt: Double?, now: Double, newWindows: Int) -> Bool {
    guard let computedAt else { return true }
    return now - computedAt >= refreshAgeSeconds || newWindows >= refreshNewWindows
  }
}
