import Synchronization

/// The evaluation set: which records exist, how to make one, and how to score an analyzer on one.
/// docs/evaluation-set.md describes the material, the conditions and the scoring.
public enum EvalSet {
  /// The MAX30102's rates the set is rendered at.
  public static let rates: [Double] = [25, 50, 100, 200, 400]

  /// The whole set (what scripts/bench-accuracy writes and scores): every condition at every rate, `seeds`
  /// records each, `durationSeconds` long.
  public static func fullSpecs(seeds: Int = 2, firstSeed: Int = 1, durationSeconds: Double = 300) -> [EvalRecordSpec] {
    EvalCondition.allCases.flatMap { condition in
      rates.flatMap { rate in
        (firstSeed..<(firstSeed + max(1, seeds))).map {
          EvalRecordSpec(condition: condition, rateHz: rate, seed: $0, durationSeconds: durationSeconds)
        }
      }
    }
  }

  /// The small subset the tests use: every condition at 25, 100 and 400 Hz, two minutes each, seed 1.
  public static func subsetSpecs(durationSeconds: Double = 120) -> [EvalRecordSpec] {
    EvalCondition.allCases.flatMap { condition in
      [25.0, 100, 400].map {
        EvalRecordSpec(condition: condition, rateHz: $0, seed: 1, durationSeconds: durationSeconds)
      }
    }
  }

  /// Why the set cannot be made here (the shared data set is absent or unreadable), as one line; nil when it can.
  public static var unavailableReason: String? { EvalMaterial.unavailableReason }

  /// Makes one record in memory. Throws `EvalSetError.unavailable` without the shared data. `noiseFree` renders
  /// the same pulse train on a flat light level without noise or motion (for checking the generator itself).
  public static func record(_ spec: EvalRecordSpec, noiseFree: Bool = false) throws -> EvalRecord {
    guard let material = EvalMaterial.shared else { throw EvalSetError.unavailable(unavailableReason ?? "") }
    return EvalGenerator.record(spec, material: material, noiseFree: noiseFree)
  }

  /// `record(spec)`, kept for the rest of the process (records of up to 10 minutes): tests that score several
  /// analyzers or configurations on the subset make each record once.
  public static func cachedRecord(_ spec: EvalRecordSpec) throws -> EvalRecord {
    if let record = cache.withLock({ $0[spec] }) { return record }
    let record = try record(spec)
    if spec.durationSeconds <= 600 { cache.withLock { $0[spec] = record } }
    return record
  }

  private static let cache = Mutex<[EvalRecordSpec: EvalRecord]>([:])

  /// Makes a record (cached), runs `analyzer` on it, and scores the output against the truth (`EvalScore`).
  /// The place for the detector's accuracy tests: e.g.
  /// `try EvalSet.score(.init(condition: .fast, rateHz: 100, seed: 1, durationSeconds: 120), analyzer: .stressmon)`.
  public static func score(_ spec: EvalRecordSpec, analyzer: EvalAnalyzer) throws -> EvalScore {
    let record = try cachedRecord(spec)
    return EvalScore(record: record, output: try analyzer.run(record))
  }

  /// Scores `analyzer` on every spec (the subset by default) and pools the scores per condition.
  public static func summaries(
    _ specs: [EvalRecordSpec] = subsetSpecs(), analyzer: EvalAnalyzer
  ) throws -> [EvalCondition: EvalSummary] {
    var scores: [EvalCondition: [EvalScore]] = [:]
    for spec in specs { scores[spec.condition, default: []].append(try score(spec, analyzer: analyzer)) }
    return scores.mapValues(EvalSummary.init)
  }

  /// The same for a condition at one rate (seed 1, two minutes unless given).
  public static func score(
    condition: EvalCondition, rateHz: Double, seed: Int = 1, durationSeconds: Double = 120, analyzer: EvalAnalyzer
  ) throws -> EvalScore {
    try score(
      EvalRecordSpec(condition: condition, rateHz: rateHz, seed: seed, durationSeconds: durationSeconds),
      analyzer: analyzer)
  }
}

public enum EvalSetError: Error, CustomStringConvertible {
  case unavailable(String)

  public var description: String {
    switch self {
    case .unavailable(let reason): "evaluation set unavailable: \(reason)"
    }
  }
}
