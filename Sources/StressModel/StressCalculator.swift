import PortableMath

/// The stress score of the StressMonitor seeds, ported unchanged (DESIGN.md "The stress algorithm"):
///
///     nHRV   = max(0, (baseline HRV − HRV) / baseline HRV)
///     nHR    = max(0, (HR − resting HR) / resting HR)
///     stress = 100 × (0.7 × nHRV^0.8 + 0.3 × atan(2 × nHR) / (π/2)),  clamped to [0, 100]
public struct StressCalculator: Sendable {
  // MARK: - Constants (seeds 000/002)

  public static let hrvWeight = 0.7
  public static let heartRateWeight = 0.3
  public static let hrvExponent = 0.8
  public static let heartRateSlope = 2.0
  /// HRV at or below this is not a valid reading (seed 002: "HRV validity (must be > 20 ms)").
  public static let minimumValidHRVMs = 20.0
  /// Heart rates a resting adult plausibly shows (seed 002: 40-180 bpm).
  public static let plausibleHeartRate: ClosedRange<Double> = 40...180
  /// Inputs outside these are rejected as absurd rather than scored (CLI and API validation).
  public static let acceptedHRVMs: ClosedRange<Double> = 1...1000
  public static let acceptedHeartRateBpm: ClosedRange<Double> = 20...300
  /// Beats in a 60 s window for full confidence from the beat count (about one per second at rest).
  public static let beatsForFullConfidence = 50.0

  /// Inputs of the confidence score beyond HRV and HR.
  public struct Evidence: Sendable, Equatable {
    /// Clean beats in the window; nil when the figures did not come from a window (e.g. `stressmon score`).
    public var beats: Int?
    /// Share (0-1) of beats rejected as artefacts in the window.
    public var rejectedShare: Double
    public init(beats: Int? = nil, rejectedShare: Double = 0) {
      self.beats = beats
      self.rejectedShare = rejectedShare
    }
  }

  public init() {}

  // MARK: - Public

  /// The stress level (0-100) of an HRV (ms) and a heart rate (bpm) against a baseline.
  public func level(hrvMs: Double, heartRateBpm: Double, baseline: PersonalBaseline) -> Double {
    let nHRV = max(0, (baseline.hrvMs - hrvMs) / baseline.hrvMs)
    let nHR = max(0, (heartRateBpm - baseline.restingHeartRateBpm) / baseline.restingHeartRateBpm)
    let hrvComponent = PortableMath.pow(nHRV, Self.hrvExponent)
    let heartRateComponent = PortableMath.atan(Self.heartRateSlope * nHR) / (Double.pi / 2)
    return StressLevel.clamp(100 * (Self.hrvWeight * hrvComponent + Self.heartRateWeight * heartRateComponent))
  }

  /// Confidence 0-1: the product of five factors, each 1 when the evidence is good.
  /// - HRV valid (> 20 ms): 1, else 0.3.   - HR plausible (40-180 bpm): 1, else 0.3.
  /// - beats: min(1, beats / 50) when known.   - artefacts: 1 − 2 × rejected share, floored at 0.
  /// - baseline: 1 when personal, 0.7 while the default is in use.
  public func confidence(hrvMs: Double, heartRateBpm: Double, baseline: PersonalBaseline, evidence: Evidence) -> Double {
    var c = 1.0
    if !(hrvMs > Self.minimumValidHRVMs) { c *= 0.3 }
    if !Self.plausibleHeartRate.contains(heartRateBpm) { c *= 0.3 }
    if let beats = evidence.beats { c *= min(1, max(0, Double(beats)) / Self.beatsForFullConfidence) }
    c *= max(0, 1 - 2 * min(1, max(0, evidence.rejectedShare)))
    if !baseline.isPersonal { c *= 0.7 }
    return min(1, max(0, c))
  }

  /// The full result: level, category, mood and confidence.
  public func result(
    hrvMs: Double, heartRateBpm: Double, baseline: PersonalBaseline, evidence: Evidence = Evidence()
  ) -> StressResult {
    let level = level(hrvMs: hrvMs, heartRateBpm: heartRateBpm, baseline: baseline)
    return StressResult(
      level: level,
      confidence: confidence(hrvMs: hrvMs, heartRateBpm: heartRateBpm, baseline: baseline, evidence: evidence),
      hrvMs: hrvMs,
      heartRateBpm: heartRateBpm,
      baseline: baseline
    )
  }
}

/// A scored measurement. Category and mood are derived from the level, never stored apart from it.
public struct StressResult: Sendable, Equatable, Codable {
  public var level: Double
  public var confidence: Double
  public var hrvMs: Double
  public var heartRateBpm: Double
  public var baseline: PersonalBaseline

  public init(level: Double, confidence: Double, hrvMs: Double, heartRateBpm: Double, baseline: PersonalBaseline) {
    self.level = level
    self.confidence = confidence
    self.hrvMs = hrvMs
    self.heartRateBpm = heartRateBpm
    self.baseline = baseline
  }

  public var category: StressCategory { StressCategory(level: level) }
  public var mood: StressMood { StressMood(level: level) }
}
