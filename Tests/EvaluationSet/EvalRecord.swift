import FoundationEssentials

/// A span of stream time, seconds, [start, end).
public struct TimeSpan: Sendable, Equatable, Codable {
  public var start: Double
  public var end: Double

  public init(_ start: Double, _ end: Double) {
    self.start = start
    self.end = end
  }

  public func contains(_ t: Double) -> Bool { t >= start && t < end }

  /// Seconds of this span inside [lo, hi).
  public func overlap(_ lo: Double, _ hi: Double) -> Double { max(0, min(end, hi) - max(start, lo)) }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(start)
    try container.encode(end)
  }

  public init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    start = try container.decode(Double.self)
    end = try container.decode(Double.self)
  }
}

/// A true heartbeat: its systolic peak, exact.
public struct TruthBeat: Sendable, Equatable {
  /// Stream seconds of the systolic peak (sample n is at n / rate).
  public var seconds: Double
  /// Position in the heart's beat train (consecutive numbers are consecutive heartbeats).
  public var number: Int
  public var premature: Bool
  /// False while the finger is lifted (no pulse reaches the sensor).
  public var visible: Bool
}

/// One record of the evaluation set: raw MAX30102 IR intensity (18-bit counts, pulses down) and its truth.
public struct EvalRecord: Sendable {
  public let spec: EvalRecordSpec
  public let parameters: EvalParameters
  public let samples: [Int32]
  /// The light level before quantisation, for records made `noiseFree` (checking the truth against the render).
  public let noiseFreeLevels: [Double]?
  /// Every heartbeat whose peak falls in the record, visible or not.
  public let beats: [TruthBeat]
  public let motionSpans: [TimeSpan]
  public let liftSpans: [TimeSpan]
  /// Where scoring looks at neither truth nor detections: the first second and last half second (start-up and a
  /// peak that cannot be confirmed yet), and each lift from 0.25 s before to 2 s after (contact changing).
  public let excludedSpans: [TimeSpan]

  public var rateHz: Double { spec.rateHz }
  public var name: String { spec.name }
  public var durationSeconds: Double { Double(samples.count) / spec.rateHz }

  /// The beats a detector could see (finger on).
  public var visibleBeats: [TruthBeat] { beats.filter(\.visible) }

  // MARK: - Files

  /// The CSV as `stressmon analyze` and the peers read it: header `ppg`, one integer a row.
  public func csv() -> String {
    var text = "ppg\n"
    text.reserveCapacity(samples.count * 7 + 4)
    for sample in samples {
      text += String(sample)
      text += "\n"
    }
    return text
  }

  /// The sidecar in the shape of the shared data set's, plus the exact truth and how the record was made.
  public func sidecar() -> EvalSidecar {
    let visible = visibleBeats
    return EvalSidecar(
      fs: spec.rateHz, polarity: "inverted", reference: "exact_ppg_peaks",
      beats: visible.map { Int(($0.seconds * spec.rateHz).rounded()) }, beatTimesS: visible.map(\.seconds),
      beatNumbers: visible.map(\.number),
      prematureBeats: visible.indices.filter { visible[$0].premature },
      excludedS: excludedSpans, motionS: motionSpans, liftedS: liftSpans, condition: spec.condition, seed: spec.seed,
      generatorSeed: String(spec.generatorSeed, radix: 16), nSamples: samples.count, durationS: durationSeconds,
      parameters: parameters,
      source: "stressmon-evalset: semi-synthetic, from the shared data set (see docs/evaluation-set.md)",
      license: EvalSidecar.licenseNote(parameters),
      notes: "Raw MAX30102-style IR intensity, 18-bit counts, pulses point down. beats / beat_times_s: the systolic "
        + "peak of every rendered pulse while the finger is on (exact; beats = rounded sample index). Score inside "
        + "the complement of excluded_s only.")
  }

  /// Writes `<name>.csv` and `<name>.json` into `directory`.
  public func write(to directory: String) throws {
    let base = directory + "/" + name
    try Data(csv().utf8).write(to: URL(fileURLWithPath: base + ".csv"))
    try Data(sidecar().encoded()).write(to: URL(fileURLWithPath: base + ".json"))
  }
}

/// The JSON beside each record. `fs`, `polarity`, `reference` and `beats` read as the shared data set's sidecars
/// do (so `stressmon analyze` and the peers' tools take the records as they are).
public struct EvalSidecar: Sendable, Codable, Equatable {
  public var fs: Double
  public var polarity: String
  public var reference: String
  public var beats: [Int]
  public var beatTimesS: [Double]
  public var beatNumbers: [Int]
  /// Indices into `beats` of the premature beats.
  public var prematureBeats: [Int]
  public var excludedS: [TimeSpan]
  public var motionS: [TimeSpan]
  public var liftedS: [TimeSpan]
  public var condition: EvalCondition
  public var seed: Int
  public var generatorSeed: String
  public var nSamples: Int
  public var durationS: Double
  public var parameters: EvalParameters
  public var source: String
  public var license: String
  public var notes: String

  /// snake_case keys (as the shared sidecars), sorted, so the same record always gives the same bytes.
  public func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return try encoder.encode(self)
  }

  public static func decode(_ data: Data) throws -> EvalSidecar {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(EvalSidecar.self, from: data)
  }

  static func licenseNote(_ p: EvalParameters) -> String {
    "Derived in memory from: pulse shape \(p.shape), RR series \(p.rrSource ?? "none (synthetic AF intervals)"), "
      + "noise \(p.noiseSource)\(p.motionBursts == nil ? "" : ", motion bsn_bvp_motion_artifact") (licences per "
      + "source in docs/evaluation-set.md). Not for redistribution beyond what those licences allow."
  }
}
