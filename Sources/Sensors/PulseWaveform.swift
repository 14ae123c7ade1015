import Platform
import Signals

/// A recorded pulse wave, normalised to feed emulators: pulses point up, median 0, and the 5th-95th percentile
/// spread (about one pulse's height) is 1. Played in a loop, by time, with linear interpolation, so any
/// emulated sample rate can be drawn from it.
public struct PulseWaveform: Sendable {
  // MARK: - Properties

  public let samples: [Float]
  public let sampleRateHz: Double
  /// Where the wave came from (a path), and its licence when the sidecar gives one.
  public let source: String
  public let license: String?

  // MARK: - Initialization

  /// Reads a recording's default channel (`ppg`, else `ir`, else the only column); rate and polarity from its
  /// sidecar. Inverted recordings (raw light intensity) are flipped so that pulses point up. Gaps are bridged.
  public init(recordingAt path: String) throws(SensorError) {
    let reader: RecordingReader
    var values: [Double] = []
    do {
      reader = try RecordingReader(path: path)
      while let block = try reader.nextBlock() {
        values.reserveCapacity(values.count + block.count)
        for sample in block.channels[0] { values.append(reader.fileValue(sample)) }
      }
    } catch {
      throw .recording(error)
    }
    guard let rate = reader.sidecar?.fs, rate > 0 else {
      throw .recording(.badSidecar(
        path: RecordingSidecar.path(forRecording: path), reason: "it gives no sample rate 'fs'; the emulator needs it"))
    }
    guard values.count >= 2 else { throw .recording(.empty(path: path)) }
    self.init(
      values: values, sampleRateHz: rate, polarity: reader.sidecar?.polarity ?? .normal, source: path,
      license: reader.sidecar?.license)
  }

  /// Normalises `values` (in any units) sampled at `sampleRateHz`.
  public init(values: [Double], sampleRateHz: Double, polarity: Polarity, source: String, license: String? = nil) {
    precondition(values.count >= 2 && sampleRateHz > 0)
    let sign = polarity == .inverted ? -1.0 : 1.0
    let sorted = values.map { $0 * sign }.sorted()
    func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(p * Double(sorted.count - 1)))] }
    let median = percentile(0.5)
    let spread = max(percentile(0.95) - percentile(0.05), 1e-12)
    samples = values.map { Float(($0 * sign - median) / spread) }
    self.sampleRateHz = sampleRateHz
    self.source = source
    self.license = license
  }

  // MARK: - Public

  /// Length of one loop in seconds.
  public var duration: Double { Double(samples.count) / sampleRateHz }

  /// The wave at `seconds` from its start, looping.
  public func value(at seconds: Double) -> Double {
    let position = seconds * sampleRateHz
    let count = samples.count
    var whole = Int(position.rounded(.down)) % count
    if whole < 0 { whole += count }
    let fraction = position - position.rounded(.down)
    let a = Double(samples[whole])
    let b = Double(samples[(whole + 1) % count])
    return a + (b - a) * fraction
  }
}

/// Deterministic noise: a SplitMix64 hash of (index, stream) mapped to [-1, 1]. The same sample always gets the
/// same noise, so that two runs, or a test and the emulator, agree to the count.
enum DeterministicNoise {
  static func hash(_ index: Int, _ stream: UInt64) -> UInt64 {
    SplitMix64.mix(UInt64(bitPattern: Int64(index)) &* SplitMix64.increment &+ stream &* 0xD1B5_4A32_D192_ED03)
  }

  /// Triangular noise in [-1, 1] (the sum of two uniforms), closer to sensor noise than a uniform.
  static func triangular(_ index: Int, _ stream: UInt64) -> Double {
    let h = hash(index, stream)
    let a = Double(h & 0xFFFF_FFFF) / Double(UInt32.max)
    let b = Double(h >> 32) / Double(UInt32.max)
    return a + b - 1
  }
}
