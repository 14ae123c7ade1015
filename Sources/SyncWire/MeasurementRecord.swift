import StressModel

/// One measurement window as stored on the device and sent to the hub: the single definition of a measurement
/// row. The store persists exactly these fields; the wire carries them as JSON with snake_case keys.
///
/// Clock fields: a Pi has no real-time clock, so every row carries the boot it was taken in, the boot-relative
/// monotonic time, and whether the wall clock was synchronised. Rows taken before synchronisation get their wall
/// times corrected from the monotonic clock once it is, and are not uploaded until then.
public struct MeasurementRecord: Sendable, Equatable, Codable {
  /// Stable UUID (lowercase, RFC 4122 text). The hub upserts by it, so retries never duplicate.
  public var id: String
  public var deviceId: String
  /// Wall-clock start and end of the window, seconds since the Unix epoch.
  public var windowStart: Double
  public var windowEnd: Double
  /// `/proc/sys/kernel/random/boot_id` of the boot the window was measured in.
  public var bootId: String
  /// CLOCK_BOOTTIME seconds at the window's end.
  public var monotonicEnd: Double
  /// Whether `windowStart`/`windowEnd` come from a synchronised wall clock.
  public var clockSynchronised: Bool
  /// 0-100; nil when the window is uncategorised (quality not good).
  public var stressLevel: Double?
  public var category: StressCategory?
  public var confidence: Double
  public var sdnnMs: Double?
  public var rmssdMs: Double?
  public var heartRateBpm: Double?
  public var baselineHrvMs: Double
  public var restingHeartRateBpm: Double
  public var baselinePersonal: Bool
  public var quality: WindowQuality
  /// Clean beats in the window and beats rejected as artefacts.
  public var beats: Int
  public var rejectedBeats: Int
  /// Last change, seconds since the Unix epoch: on a conflict the newer `modifiedAt` wins (the seeds' rule).
  public var modifiedAt: Double

  public init(
    id: String, deviceId: String, windowStart: Double, windowEnd: Double, bootId: String, monotonicEnd: Double,
    clockSynchronised: Bool, stressLevel: Double?, category: StressCategory?, confidence: Double, sdnnMs: Double?,
    rmssdMs: Double?, heartRateBpm: Double?, baselineHrvMs: Double, restingHeartRateBpm: Double,
    baselinePersonal: Bool, quality: WindowQuality, beats: Int, rejectedBeats: Int, modifiedAt: Double
  ) {
    self.id = id
    self.deviceId = deviceId
    self.windowStart = windowStart
    self.windowEnd = windowEnd
    self.bootId = bootId
    self.monotonicEnd = monotonicEnd
    self.clockSynchronised = clockSynchronised
    self.stressLevel = stressLevel
    self.category = category
    self.confidence = confidence
    self.sdnnMs = sdnnMs
    self.rmssdMs = rmssdMs
    self.heartRateBpm = heartRateBpm
    self.baselineHrvMs = baselineHrvMs
    self.restingHeartRateBpm = restingHeartRateBpm
    self.baselinePersonal = baselinePersonal
    self.quality = quality
    self.beats = beats
    self.rejectedBeats = rejectedBeats
    self.modifiedAt = modifiedAt
  }

  enum CodingKeys: String, CodingKey {
    case id, confidence, quality, beats, category
    case deviceId = "device_id"
    case windowStart = "window_start"
    case windowEnd = "window_end"
    case bootId = "boot_id"
    case monotonicEnd = "monotonic_end"
    case clockSynchronised = "clock_synchronised"
    case stressLevel = "stress_level"
    case sdnnMs = "sdnn_ms"
    case rmssdMs = "rmssd_ms"
    case heartRateBpm = "heart_rate_bpm"
    case baselineHrvMs = "baseline_hrv_ms"
    case restingHeartRateBpm = "resting_heart_rate_bpm"
    case baselinePersonal = "baseline_personal"
    case rejectedBeats = "rejected_beats"
    case modifiedAt = "modified_at"
  }

  /// Of two versions of the same row, the one to keep: the newer `modifiedAt`; on a tie, the incoming one.
  public static func resolve(existing: MeasurementRecord, incoming: MeasurementRecord) -> MeasurementRecord {
    incoming.modifiedAt >= existing.modifiedAt ? incoming : existing
  }
}
