import FoundationEssentials
@_exported import enum PulseDSP.PulsePolarity

/// Which way the pulse points in a recording: the detector's own `PulsePolarity` (one definition), under the
/// name the recording format uses.
public typealias Polarity = PulsePolarity

/// The JSON file beside a recording (`<name>.json` for `<name>.csv`): sample rate, polarity, licence and, where
/// known, reference beats. Unknown keys are ignored, so the data set's richer sidecars read as they are.
public struct RecordingSidecar: Sendable, Codable, Equatable {
  /// Sample rate in Hz.
  public var fs: Double?
  public var polarity: Polarity?
  /// Leading samples that are device start-up, not signal (PLUX SpO2 files start with two zeros).
  public var startupSamplesToSkip: Int?
  /// "ecg_rpeaks" or "none".
  public var reference: String?
  /// Reference beat sample indices, in the CSV's time base.
  public var beats: [Int]?
  public var license: String?
  public var source: String?
  public var notes: String?
  /// Columns of the CSV, for files written by `stressmon record`.
  public var columns: [String]?
  /// Sensor part and settings, for files written by `stressmon record`.
  public var sensor: String?

  public init(
    fs: Double? = nil, polarity: Polarity? = nil, startupSamplesToSkip: Int? = nil, reference: String? = nil,
    beats: [Int]? = nil, license: String? = nil, source: String? = nil, notes: String? = nil,
    columns: [String]? = nil, sensor: String? = nil
  ) {
    self.fs = fs
    self.polarity = polarity
    self.startupSamplesToSkip = startupSamplesToSkip
    self.reference = reference
    self.beats = beats
    self.license = license
    self.source = source
    self.notes = notes
    self.columns = columns
    self.sensor = sensor
  }

  enum CodingKeys: String, CodingKey {
    case fs, polarity, reference, beats, license, source, notes, columns, sensor
    case startupSamplesToSkip = "startup_samples_to_skip"
  }

  /// The sidecar path of a recording: the same name with `.json` in place of the extension.
  public static func path(forRecording path: String) -> String {
    let slash = path.lastIndex(of: "/")
    if let dot = path.lastIndex(of: "."), slash.map({ dot > $0 }) ?? true {
      return String(path[..<dot]) + ".json"
    }
    return path + ".json"
  }

  /// Loads the sidecar of a recording; nil when there is none. A sidecar that exists but does not parse is an
  /// error: silently ignoring it would analyse at the wrong rate.
  public static func load(forRecording path: String) throws(RecordingError) -> RecordingSidecar? {
    let sidecarPath = Self.path(forRecording: path)
    guard FileManager.default.fileExists(atPath: sidecarPath) else { return nil }
    guard let data = FileManager.default.contents(atPath: sidecarPath) else {
      throw .unreadable(path: sidecarPath, reason: "cannot read the sidecar")
    }
    do {
      return try JSONDecoder().decode(RecordingSidecar.self, from: data)
    } catch {
      throw .badSidecar(path: sidecarPath, reason: "\(error)")
    }
  }

  /// Writes the sidecar beside a recording (pretty, sorted keys).
  public func write(forRecording path: String) throws(RecordingError) {
    let sidecarPath = Self.path(forRecording: path)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
      let data = try encoder.encode(self)
      try data.write(to: URL(fileURLWithPath: sidecarPath))
    } catch {
      throw .cannotCreate(path: sidecarPath, reason: "\(error)")
    }
  }
}
