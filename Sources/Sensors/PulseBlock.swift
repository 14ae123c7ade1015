import Signals

/// Whether something is on the sensor, as the source sees it. Quality is first-class: the daemon shows
/// "no contact" rather than a made-up number.
public enum SensorContact: String, Sendable, Equatable, Codable {
  /// The source cannot tell (replay, synthetic, analog sensors), or has not looked yet.
  case unknown
  /// Light level in the working range.
  case good
  /// The IR level is too low for a finger to be on the sensor.
  case noFinger
  /// The ADC is at full scale even at the lowest LED current: too much light (ambient, or no skin contact).
  case saturated
}

/// A run of contiguous samples from a `PulseSource`: the same type flows from every source.
///
/// `ir` is the channel for beat detection (the IR LED of a MAX3010x; the only channel of an analog sensor or a
/// one-column recording). `red` (and `green` on three-LED parts) are sampled at the same instants, or empty.
/// `gapBefore` samples were lost just before this block (FIFO overflow, a failed bus read, a late wake-up): the
/// consumer must not stitch across it. Raw MAX3010x counts are light intensity, so pulses point down: read the
/// polarity from `PulseSourceInfo`.
public struct PulseBlock: Sendable, Equatable {
  /// Samples lost immediately before this block (0 when it continues the previous block).
  public var gapBefore: Int
  /// Index of the first sample on the source's timeline, counting lost samples (0 = the first sample produced).
  public var firstSampleIndex: Int
  public var ir: [Int32]
  public var red: [Int32]
  public var green: [Int32]
  public var contact: SensorContact
  /// The LED current was changed just before this block, so the DC level steps here (no samples were lost).
  public var levelStepBefore: Bool

  public init(
    gapBefore: Int = 0, firstSampleIndex: Int, ir: [Int32], red: [Int32] = [], green: [Int32] = [],
    contact: SensorContact = .unknown, levelStepBefore: Bool = false
  ) {
    self.gapBefore = gapBefore
    self.firstSampleIndex = firstSampleIndex
    self.ir = ir
    self.red = red
    self.green = green
    self.contact = contact
    self.levelStepBefore = levelStepBefore
  }

  public var count: Int { ir.count }
  public var isEmpty: Bool { ir.isEmpty }
  /// Index just past the last sample.
  public var endSampleIndex: Int { firstSampleIndex + ir.count }
}

/// What a source produces: fixed for the source's lifetime, known before the first sample.
public struct PulseSourceInfo: Sendable, Equatable {
  /// "max30102", "max30105", "emulated max30102", "ads1115", "replay", "synthetic".
  public var kind: String
  /// Samples per second of each channel (MAX3010x: ADC rate ÷ averaging).
  public var sampleRateHz: Double
  /// Raw MAX3010x intensity is `inverted` (pulses down); BVP and analog pulse sensors are `normal`.
  public var polarity: Polarity
  /// Names of the channels, in `PulseBlock` order: "ir", "red", "green", or a recording's column name.
  public var channels: [String]
  /// Largest sample value (MAX3010x 18-bit: 262143), when the source has a fixed scale.
  public var fullScale: Int32?
  /// One line describing the device and its settings, for the recording sidecar and logs.
  public var settings: String

  public init(
    kind: String, sampleRateHz: Double, polarity: Polarity, channels: [String], fullScale: Int32?, settings: String
  ) {
    self.kind = kind
    self.sampleRateHz = sampleRateHz
    self.polarity = polarity
    self.channels = channels
    self.fullScale = fullScale
    self.settings = settings
  }
}
