import FoundationEssentials
import StressModel

/// The one state message a device publishes (retained) on `<topic_prefix>/<device>/state`: every sensor of the
/// discovery reads its field from it. Fields without a value are JSON `null`, which Home Assistant's templates
/// render as `None` and show as "unknown": a window that could not be scored never leaves an old number behind.
public struct HomeAssistantState: Sendable, Equatable, Encodable {
  /// The daemon's state name (`measuring`, `learning_baseline`, `no_contact`, `uncategorised`, `error` ...).
  public var state: String
  public var category: StressCategory?
  /// 0-100, one decimal.
  public var stressLevel: Double?
  /// SDNN of the window's clean beat intervals, ms, one decimal.
  public var hrvMs: Double?
  public var heartRateBpm: Double?
  /// The result's confidence, 0-100 %.
  public var confidencePercent: Int?
  /// `good` when scored, else why not (`no_contact`, `poor_signal` ...); null while starting or settling.
  public var signalQuality: WindowQuality?
  /// `personal` or `default` (while the personal baseline is being learned).
  public var baseline: String?
  /// The scored window's end, Unix seconds.
  public var windowEnd: Int64?

  public init(
    state: String, category: StressCategory? = nil, stressLevel: Double? = nil, hrvMs: Double? = nil,
    heartRateBpm: Double? = nil, confidencePercent: Int? = nil, signalQuality: WindowQuality? = nil,
    baseline: String? = nil, windowEnd: Int64? = nil
  ) {
    self.state = state
    self.category = category
    self.stressLevel = stressLevel
    self.hrvMs = hrvMs
    self.heartRateBpm = heartRateBpm
    self.confidencePercent = confidencePercent
    self.signalQuality = signalQuality
    self.baseline = baseline
    self.windowEnd = windowEnd
  }

  /// A scored result: figures rounded as the panel shows them.
  public init(state: String, result: StressResult, windowEnd: Double?) {
    self.init(
      state: state, category: result.category, stressLevel: Self.tenths(result.level),
      hrvMs: Self.tenths(result.hrvMs), heartRateBpm: Self.tenths(result.heartRateBpm),
      confidencePercent: result.confidence.isFinite ? Int((result.confidence * 100).rounded()) : nil,
      signalQuality: .good,
      baseline: result.baseline.isPersonal ? "personal" : "default",
      windowEnd: windowEnd.flatMap { $0.isFinite ? Int64($0.rounded(.down)) : nil })
  }

  enum CodingKeys: String, CodingKey {
    case state, category, baseline
    case stressLevel = "stress_level"
    case hrvMs = "hrv_ms"
    case heartRateBpm = "heart_rate_bpm"
    case confidencePercent = "confidence_percent"
    case signalQuality = "signal_quality"
    case windowEnd = "window_end"
  }

  /// Every key always present, `null` when there is no value (the synthesised encoder would leave it out, and a
  /// missing key renders as an empty state in Home Assistant, which keeps the old value).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(state, forKey: .state)
    try container.encode(category, forKey: .category)
    try container.encode(stressLevel, forKey: .stressLevel)
    try container.encode(hrvMs, forKey: .hrvMs)
    try container.encode(heartRateBpm, forKey: .heartRateBpm)
    try container.encode(confidencePercent, forKey: .confidencePercent)
    try container.encode(signalQuality, forKey: .signalQuality)
    try container.encode(baseline, forKey: .baseline)
    try container.encode(windowEnd, forKey: .windowEnd)
  }

  /// The message body: compact JSON, keys sorted (equal states are equal bytes, so an unchanged state is not
  /// published again).
  public func payload() -> [UInt8] {
    HomeAssistantJSON.encode(self)
  }

  /// One decimal; nil for a value that is not a number (never published as one).
  private static func tenths(_ value: Double) -> Double? {
    value.isFinite ? (value * 10).rounded() / 10 : nil
  }
}

enum HomeAssistantJSON {
  static func encode<T: Encodable>(_ value: T) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Every number is finite (non-finite ones become nil above) and the top level is an object: JSONEncoder has
    // nothing left to refuse.
    return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
  }
}
