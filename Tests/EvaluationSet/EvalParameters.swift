import Platform
import StressModel

/// Everything drawn for one record from its seed; written to the sidecar's `parameters` so a record says what it
/// is. Levels are in sensor counts unless named otherwise.
public struct EvalParameters: Codable, Sendable, Equatable {
  // MARK: - Pulse and rhythm

  /// Source recording of the pulse shape (`EvalMaterial.shapeSources`).
  public var shape: String
  /// Upstroke time ∝ (cycle / the shape's own cycle)^exponent: the upstroke scales less than the diastole.
  public var upstrokeExponent: Double
  /// RR series the beat timing comes from, and the interval it starts at (conditions with real timing).
  public var rrSource: String?
  public var rrStart: Int?
  /// Mean heart rate the intervals are rescaled to, and the factor on their deviations from the mean.
  public var heartRateBpm: Double
  public var variabilityScale: Double
  /// Pulse amplitude ∝ 1 + gain × (preceding interval / local median − 1) (Frank–Starling: a short filling time
  /// gives a weak beat), clamped to 0.4–1.6, times a random jitter of this relative SD.
  public var frankStarlingGain: Double
  public var amplitudeJitter: Double
  /// A cycle cut short by an early beat leaves its remaining height decaying under the next pulse with this time
  /// constant, as a share of the local median interval.
  public var carryTimeConstant: Double

  // MARK: - Light levels and noise

  /// Raw intensity with the finger on (18-bit counts).
  public var dcCounts: Double
  /// Pulse height, percent of DC.
  public var acPercent: Double
  /// Pulse height over the per-sample noise SD (real residual and white noise together).
  public var acToNoise: Double
  /// Share of the noise variance that is white (the rest is the real residual).
  public var whiteNoiseShare: Double
  public var noiseSource: String
  /// Slow drift of the light level: percent of DC, two periods in seconds.
  public var driftPercent: Double
  public var driftPeriods: [Double]

  // MARK: - Respiration

  public var respirationHz: Double
  /// Baseline wander amplitude in pulse heights, and the pulse's amplitude modulation depth.
  public var wanderToPulse: Double
  public var amplitudeModulation: Double

  // MARK: - Condition specific

  /// Premature beats: probability per beat, how early (share of the interval), compensatory pause or not.
  public var prematureProbability: Double?
  public var prematureEarliness: [Double]?
  public var compensatoryPause: Bool?
  /// AF-like rhythm: SD of the log-interval.
  public var afSpread: Double?
  public var motionBursts: [MotionBurst]?
  public var lifts: [Lift]?

  public struct MotionBurst: Codable, Sendable, Equatable {
    /// Start (s), which motion snippet, played `stretch` times slower, `gain` × pulse height per source pulse.
    public var startSeconds: Double
    public var snippet: Int
    public var stretch: Double
    public var gain: Double
    public var durationSeconds: Double
  }

  public struct Lift: Codable, Sendable, Equatable {
    /// The light starts falling at `startSeconds`, is dark for `darkSeconds`, rises over `upSeconds`.
    public var startSeconds: Double
    public var downSeconds: Double
    public var darkSeconds: Double
    public var upSeconds: Double
    /// Light left when lifted (ambient, reflections), percent of DC.
    public var darkPercent: Double
    /// On return the level starts off by this share and settles with this time constant (s).
    public var settleShare: Double
    public var settleSeconds: Double

    public var endSeconds: Double { startSeconds + downSeconds + darkSeconds + upSeconds }
  }

  // MARK: - Drawing

  /// Draws a record's parameters. Every condition varies shape, rhythm source, levels, noise and respiration;
  /// the condition sets the ranges that define it (docs/evaluation-set.md).
  static func draw(
    _ spec: EvalRecordSpec, material: EvalMaterial, random: inout SplitMix64
  ) -> EvalParameters {
    let condition = spec.condition
    var p = EvalParameters(
      shape: material.shapes[random.int(0...(material.shapes.count - 1))].source,
      upstrokeExponent: random.uniform(0.1, 0.4),
      heartRateBpm: random.uniform(55, 95), variabilityScale: random.uniform(0.8, 1.2),
      frankStarlingGain: random.uniform(0.5, 1.2), amplitudeJitter: random.uniform(0.01, 0.04),
      carryTimeConstant: random.uniform(0.15, 0.35),
      dcCounts: random.uniform(100_000, 200_000), acPercent: random.uniform(0.5, 3.0),
      acToNoise: random.uniform(15, 60), whiteNoiseShare: random.uniform(0.1, 0.5),
      noiseSource: material.noise[random.int(0...(material.noise.count - 1))].source,
      driftPercent: random.uniform(0.1, 1.0), driftPeriods: [random.uniform(60, 200), random.uniform(20, 60)],
      respirationHz: random.uniform(0.15, 0.35), wanderToPulse: random.uniform(0.1, 0.5),
      amplitudeModulation: random.uniform(0.02, 0.1))
    if condition != .af {
      let series = material.rrSeries[random.int(0...(material.rrSeries.count - 1))]
      p.rrSource = series.name
      p.rrStart = random.int(0...(series.intervalsMs.count - 1))
    }
    switch condition {
    case .clean, .motion, .lifted:
      break
    case .fast:
      p.heartRateBpm = random.uniform(150, 190)
      p.acPercent = random.uniform(0.3, 2.0)
    case .slow:
      p.heartRateBpm = random.uniform(38, 44)
    case .noisy:
      p.acPercent = random.uniform(0.1, 0.5)
      p.acToNoise = random.uniform(2, 5)
      p.whiteNoiseShare = random.uniform(0.2, 0.6)
    case .prematureCompensatory, .prematureNoncompensatory:
      p.prematureProbability = random.uniform(0.03, 0.10)
      p.prematureEarliness = [0.20, 0.35]
      p.compensatoryPause = condition == .prematureCompensatory
    case .af:
      p.heartRateBpm = random.uniform(70, 120)
      p.afSpread = random.uniform(0.15, 0.30)
    case .respiration:
      p.respirationHz = random.uniform(0.1, 0.4)
      p.wanderToPulse = random.uniform(0.5, 2.5)
      p.amplitudeModulation = random.uniform(0.15, 0.4)
    }
    if condition == .motion { p.motionBursts = drawBursts(spec.durationSeconds, material: material, &random) }
    if condition == .lifted { p.lifts = drawLifts(spec.durationSeconds, &random) }
    return p
  }

  /// About one burst per 45 s, each in its own slot of the record after the first 10 s.
  private static func drawBursts(
    _ duration: Double, material: EvalMaterial, _ random: inout SplitMix64
  ) -> [MotionBurst] {
    let count = max(1, Int(duration / 45))
    let slot = (duration - 15) / Double(count)
    return (0..<count).map { k in
      let snippet = random.int(0...(material.motion.count - 1))
      let stretch = random.uniform(0.7, 2.0)
      let length = Double(material.motion[snippet].values.count) / material.motion[snippet].rateHz * stretch
      let start = 10 + Double(k) * slot + random.uniform(0, max(0, slot - length))
      let sign: Double = random.int(0...1) == 0 ? 1 : -1
      return MotionBurst(
        startSeconds: start, snippet: snippet, stretch: stretch, gain: sign * random.uniform(0.3, 1.5),
        durationSeconds: length)
    }
  }

  /// About one lift per 150 s, each in its own slot after the first 15 s.
  private static func drawLifts(_ duration: Double, _ random: inout SplitMix64) -> [Lift] {
    let count = max(1, Int(duration / 150))
    let slot = (duration - 20) / Double(count)
    return (0..<count).map { k in
      var lift = Lift(
        startSeconds: 0, downSeconds: random.uniform(0.1, 0.6), darkSeconds: random.uniform(4, 45),
        upSeconds: random.uniform(0.2, 1.0), darkPercent: random.uniform(0.2, 4),
        settleShare: random.uniform(-0.08, 0.08), settleSeconds: random.uniform(0.5, 3))
      let length = lift.endSeconds
      lift.startSeconds = 15 + Double(k) * slot + random.uniform(0, max(0, slot - length - 5))
      return lift
    }
  }
}

extension SplitMix64 {
  /// Uniform in [low, high).
  mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }

  /// Standard normal (Box–Muller; one of the pair).
  mutating func gaussian() -> Double {
    let u = max(unit(), 1e-300)
    let v = unit()
    return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
  }
}
