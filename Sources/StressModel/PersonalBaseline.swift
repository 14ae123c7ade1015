/// The wearer's reference point: the HRV and resting heart rate a stress level is measured against.
public struct PersonalBaseline: Sendable, Equatable, Codable {
  /// Population default used until enough personal windows exist (DESIGN.md: HRV 50 ms, resting HR 60 bpm).
  public static let `default` = PersonalBaseline(
    hrvMs: 50, restingHeartRateBpm: 60, isPersonal: false, windowCount: 0, computedAt: nil)

  /// Mean HRV (SDNN, ms) of the wearer's valid windows after outlier removal.
  public var hrvMs: Double
  /// 10th percentile of the windows' mean heart rates, bpm.
  public var restingHeartRateBpm: Double
  /// False while the default is in use ("learning baseline").
  public var isPersonal: Bool
  /// Windows that went into it (after outlier removal).
  public var windowCount: Int
  /// When it was computed, seconds since the Unix epoch; nil for the default.
  public var computedAt: Double?

  public init(hrvMs: Double, restingHeartRateBpm: Double, isPersonal: Bool, windowCount: Int, computedAt: Double?) {
    self.hrvMs = hrvMs
    self.restingHeartRateBpm = restingHeartRateBpm
    self.isPersonal = isPersonal
    self.windowCount = windowCount
    self.computedAt = computedAt
  }
}
