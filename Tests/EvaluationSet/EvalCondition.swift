/// What a record of the evaluation set puts the detector through (docs/evaluation-set.md).
public enum EvalCondition: String, CaseIterable, Codable, Sendable {
  /// Sinus rhythm at 55–95 bpm from a real RR series, good perfusion, little noise.
  case clean
  /// 150–190 bpm.
  case fast
  /// 38–44 bpm.
  case slow
  /// Low perfusion (AC 0.1–0.5 % of DC) under real sensor noise 2–5 times below the pulse, plus white noise.
  case noisy
  /// Bursts of real motion artefact (the BITalino motion recording minus its pulse), 2–15× the pulse.
  case motion
  /// The finger lifted for 4–45 s: the light falls to near dark, then settles back; no beats truth there.
  case lifted
  /// Premature beats 20–35 % early followed by a full compensatory pause (the two intervals sum to two).
  case prematureCompensatory = "premature_compensatory"
  /// Premature beats 20–35 % early that reset the sinus node: the next interval is a normal one.
  case prematureNoncompensatory = "premature_noncompensatory"
  /// Irregularly irregular rhythm (i.i.d. log-normal intervals, 15–30 % spread) at 70–120 bpm.
  case af
  /// Strong respiratory baseline wander (0.5–2.5× the pulse) and amplitude modulation (15–40 %), 6–24 breaths
  /// a minute.
  case respiration

  /// Whether every window of the condition counts as noisy (should be uncategorised unless it is right).
  public var isNoisy: Bool { self == .noisy }
}

/// One record of the set: condition, sample rate, seed number and length. Everything else follows from these.
public struct EvalRecordSpec: Sendable, Hashable, Codable {
  public var condition: EvalCondition
  public var rateHz: Double
  /// 1, 2, …: the record's number within its condition and rate.
  public var seed: Int
  public var durationSeconds: Double

  public init(condition: EvalCondition, rateHz: Double, seed: Int, durationSeconds: Double) {
    self.condition = condition
    self.rateHz = rateHz
    self.seed = seed
    self.durationSeconds = durationSeconds
  }

  /// `clean_100hz_s1`.
  public var name: String { "\(condition.rawValue)_\(Int(rateHz))hz_s\(seed)" }

  /// The generator's seed: FNV-1a of "condition/rate/seed" (the length is left out, so a shorter record draws
  /// the same shape, rates and levels as the full one).
  public var generatorSeed: UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in "\(condition.rawValue)/\(Int(rateHz))/\(seed)".utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }
}
