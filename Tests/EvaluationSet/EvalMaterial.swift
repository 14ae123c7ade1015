import TestSupport

/// The real material the evaluation set is built from, read from the shared data set (`SharedData.directory`)
/// at generation time; only derived data is held, in memory, and nothing of it is committed.
/// docs/evaluation-set.md lists each source and its licence.
public struct EvalMaterial: Sendable {
  /// An RR-interval series, milliseconds.
  public struct RRSeries: Sendable {
    public let name: String
    public let license: String
    public let intervalsMs: [Double]
  }

  /// A residual track: the values, their rate, and how to scale them.
  public struct Track: Sendable {
    public let source: String
    public let license: String
    public let rateHz: Double
    /// Noise tracks: relative to the source's light level (unitless); motion snippets: in units of the source's
    /// median pulse amplitude.
    public let values: [Double]
    /// Standard deviation of `values`.
    public let standardDeviation: Double
  }

  // MARK: - Properties

  /// Averaged pulse shapes, one per source recording.
  public let shapes: [PulseShape]
  public let rrSeries: [RRSeries]
  /// Real sensor noise: raw SpO2 channels minus their pulse, relative to their light level.
  public let noise: [Track]
  /// Real motion artefact: the bursts of the motion recording minus its pulse.
  public let motion: [Track]

  /// Recordings the pulse shapes come from (pyphysio_medical through its ECG R-peaks).
  public static let shapeSources = [
    "bsn_bvp_rest", "bsn_bvp_sample", "bsn_fspo2_chn1", "bsn_hspo2_ch9", "heartpy_data", "pyphysio_medical",
    "systole_ppg", "nova_bvp",
  ]
  /// Raw-intensity channels whose residual is the sensor noise.
  public static let noiseSources = ["bsn_fspo2_chn1", "bsn_fspo2_chn2", "bsn_hspo2_ch9", "bsn_hspo2_ch10"]
  public static let motionSource = "bsn_bvp_motion_artifact"
  public static let rrSources = ["pyhrv_nni_long", "pyhrv_nni_short", "systole_rr"]

  /// The material from the shared data, read once per process; nil when the shared data is absent (tests then
  /// skip) or unreadable (`unavailableReason` says which).
  public static var shared: EvalMaterial? { try? loaded.get() }

  /// Why `shared` is nil, as one line.
  public static var unavailableReason: String? {
    if case .failure(let failure) = loaded { return failure.reason }
    return nil
  }

  private struct Unavailable: Error {
    var reason: String
  }

  private static let loaded: Result<EvalMaterial, Unavailable> = {
    guard SharedData.directory != nil else {
      return .failure(Unavailable(reason: "the shared data set is absent (set STRESSMON_DATA to its directory)"))
    }
    do {
      return .success(try load())
    } catch {
      return .failure(Unavailable(reason: "the shared data set could not be read: \(error)"))
    }
  }()

  // MARK: - Initialization

  public static func load() throws -> EvalMaterial {
    var shapes: [PulseShape] = []
    for name in shapeSources {
      let recording = try SourceRecording.load(name)
      guard let shape = PulseShape(source: recording) else { throw MaterialError.noShape(name) }
      shapes.append(shape)
    }
    var noise: [Track] = []
    for name in noiseSources {
      let recording = try SourceRecording.load(name)
      guard let shape = PulseShape(source: recording),
        let residual = SourceResidual(source: recording, shape: shape, highPassHz: 0.3)
      else { throw MaterialError.noShape(name) }
      let relative = residual.values[residual.quietestStretch()].map { $0 / residual.meanLevel }
      noise.append(
        Track(
          source: name, license: recording.license, rateHz: residual.rateHz, values: relative,
          standardDeviation: SignalMath.standardDeviation(relative)))
    }
    let motionRecording = try SourceRecording.load(motionSource)
    guard let motionShape = PulseShape(source: motionRecording),
      let motionResidual = SourceResidual(source: motionRecording, shape: motionShape, highPassHz: 0.1)
    else { throw MaterialError.noShape(motionSource) }
    let motion = motionResidual.bursts().map { span in
      let values = motionResidual.values[span].map { $0 / motionResidual.pulseAmplitude }
      return Track(
        source: motionSource, license: motionRecording.license, rateHz: motionResidual.rateHz, values: values,
        standardDeviation: SignalMath.standardDeviation(values))
    }
    guard !motion.isEmpty else { throw MaterialError.noMotion }
    var rr: [RRSeries] = []
    for name in rrSources {
      let intervals = try SharedData.column("rr/\(name).csv")
      guard intervals.count > 100 else { throw MaterialError.shortRR(name) }
      rr.append(RRSeries(name: name, license: Self.rrLicense[name] ?? "", intervalsMs: intervals))
    }
    return EvalMaterial(shapes: shapes, rrSeries: rr, noise: noise, motion: motion)
  }

  /// rr/*.json licences (the CSVs carry none).
  static let rrLicense = [
    "pyhrv_nni_long": "BSD-3-Clause (pyhrv, Pedro Gomes)", "pyhrv_nni_short": "BSD-3-Clause (pyhrv, Pedro Gomes)",
    "systole_rr": "GPL-3.0 (systole, Nicolas Legrand)",
  ]

  public enum MaterialError: Error, CustomStringConvertible {
    case noShape(String)
    case noMotion
    case shortRR(String)

    public var description: String {
      switch self {
      case .noShape(let name): "no regular pulse cycles found in \(name): is the shared data set intact?"
      case .noMotion: "no motion bursts found in \(EvalMaterial.motionSource)"
      case .shortRR(let name): "rr/\(name).csv holds too few intervals"
      }
    }
  }
}
