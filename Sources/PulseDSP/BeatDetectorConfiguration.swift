/// How a `BeatDetector` is set up: the input's rate and polarity, and what the sensor's "no contact" and
/// "saturated" look like. Everything else (filter corners, thresholds, time constants) is a named constant of
/// the algorithm, documented in docs/detector.md, and derived from the rate at set-up.
public struct BeatDetectorConfiguration: Sendable, Equatable {
  /// Where an ADC's rails are, for the "saturated" state.
  public enum Rails: Sendable, Equatable {
    /// Never report saturation.
    case none
    /// A sustained run at 0 or at 2^k − 1 (k ≥ 8: 255, 1023, 4095, 65 535, 262 143 for an 18-bit MAX30102)
    /// is a rail. Works for raw integer sensor counts of any width without knowing it; decimal recordings
    /// scaled to integers practically never sit exactly there.
    case powerOfTwo
    /// The ADC's own range: a sustained run at or beyond either bound is a rail.
    case range(low: Int32, high: Int32)
  }

  // MARK: - Properties

  /// Samples per second of the input. See `supportedRates`.
  public var sampleRateHz: Double
  /// Which way the pulse points in the input.
  public var polarity: PulsePolarity
  /// Peak-to-peak variation (input units) at or below which half a second of input counts as flat, i.e. no
  /// contact. Default 2: quantisation noise of an idle ADC, well under any real pulse (≥ ~30 LSB in every
  /// recording we have, 8-bit oximeters included).
  public var flatThreshold: Int32
  /// For raw-intensity sensors: when half a second of input never reaches this value, nothing reflects the LED
  /// (no finger). Nil disables the check (conditioned BVP has no meaningful DC). MAX30102 IR with the
  /// default LED current reads far above 10 000 with a finger and a few hundred without.
  public var noContactBelow: Int32?
  /// The ADC rails, for "saturated".
  public var rails: Rails
  /// Smallest pulse (trough to peak, input units) ever accepted as a beat: keeps quantisation noise of a flat
  /// channel from becoming beats. Default 3 LSB.
  public var minimumPulseAmplitude: Int32

  /// Rates the detector accepts. It is designed and tested for 25-1000 Hz and decimates faster input
  /// internally (beat times stay on the input timeline); slower input down to 10 Hz still works with
  /// coarser timing (the low-pass corner is kept under 0.4 × rate).
  public static let supportedRates: ClosedRange<Double> = 10...100_000

  // MARK: - Initialization

  public init(
    sampleRateHz: Double,
    polarity: PulsePolarity = .normal,
    flatThreshold: Int32 = 2,
    noContactBelow: Int32? = nil,
    rails: Rails = .powerOfTwo,
    minimumPulseAmplitude: Int32 = 3
  ) {
    self.sampleRateHz = sampleRateHz
    self.polarity = polarity
    self.flatThreshold = flatThreshold
    self.noContactBelow = noContactBelow
    self.rails = rails
    self.minimumPulseAmplitude = minimumPulseAmplitude
  }
}

/// Why a detector cannot be built.
public enum BeatDetectorError: Error, Equatable, CustomStringConvertible {
  case unsupportedRate(Double)

  public var description: String {
    switch self {
    case .unsupportedRate(let rate):
      let lower = Int(BeatDetectorConfiguration.supportedRates.lowerBound)
      let upper = Int(BeatDetectorConfiguration.supportedRates.upperBound)
      return "sample rate \(rate) Hz is outside \(lower)-\(upper) Hz; give the recording's real rate (--rate HZ)"
    }
  }
}
