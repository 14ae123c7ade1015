/// One systolic peak found by `BeatDetector`.
///
/// Positions are on the stream timeline: input samples counted from the first sample the detector saw, gaps
/// (`reset(gap:)`) included, so indices line up with a recording's rows.
public struct DetectedBeat: Sendable, Equatable {
  /// The systolic peak, in input samples × 65 536 (Q16), sub-sample by parabolic interpolation and corrected
  /// for the low-pass filter's group delay and the decimator's centre.
  public var positionQ16: Int64
  /// The input sample at which the beat was reported; `reportedAt − position` is the detection latency.
  public var reportedAt: Int64
  /// Rise of the band-passed pulse from the trough before it to the peak, in input units × 256 (Q8).
  public var amplitudeQ8: Int64
  /// Steepest rise of the band-passed pulse on its upstroke, Q8 input units per working sample
  /// (`BeatDetector.workingRateHz`).
  public var upslopeQ8: Int64
  /// Found by search-back: a beat the detector first turned away, reported with the beat one or two intervals
  /// later that showed it was missed. Its latency is therefore not bounded by `maximumLatencySeconds`.
  public var recovered: Bool
  /// Takes the place of the beat reported just before it: that one came early and small, and this one, inside the
  /// refractory period after it, is the real pulse on the rhythm (BeatDetector+Replace.swift). A consumer drops the
  /// previous beat.
  public var replacesPrevious: Bool
  /// Peaks the detector turned away between the beat before and this one, beyond the first (the pulse's secondary
  /// wave): a pulse buried in noise has them, a clean one none (0...15).
  public var extraPeaks: UInt8
  /// How the pulse template matched this beat's upstroke, peak and start of the downstroke: r² × 256 (0...256), or
  /// −1 when the template did not judge it (not ready yet, or the window not wholly in the buffer).
  public var shapeQ8: Int16

  public init(
    positionQ16: Int64, reportedAt: Int64, amplitudeQ8: Int64, upslopeQ8: Int64, recovered: Bool = false,
    replacesPrevious: Bool = false, extraPeaks: UInt8 = 0, shapeQ8: Int16 = -1
  ) {
    self.positionQ16 = positionQ16
    self.reportedAt = reportedAt
    self.amplitudeQ8 = amplitudeQ8
    self.upslopeQ8 = upslopeQ8
    self.recovered = recovered
    self.replacesPrevious = replacesPrevious
    self.extraPeaks = extraPeaks
    self.shapeQ8 = shapeQ8
  }

  /// The peak rounded to the nearest input sample.
  public var sampleIndex: Int64 { (positionQ16 &+ (1 << 15)) >> 16 }

  /// The peak in (fractional) input samples. Floating point, for consumers; the detector never uses it.
  public var position: Double { Double(positionQ16) / 65_536 }
}

/// What `BeatDetector.process` reports.
public enum BeatDetectorEvent: Sendable, Equatable {
  /// A systolic peak, reported at most `BeatDetector.maximumLatencySeconds` after it happened.
  case beat(DetectedBeat)
  /// The signal quality changed at input sample `at` (stream timeline). `rhythmOnly`: a `poorSignal` called for the
  /// rhythm alone, three of the last five intervals off it while the pulse stayed clean (no noise between the beats,
  /// no misshapen beat): premature beats or AF. The beats before and after it are the pulse's, on one timeline.
  case quality(SignalQuality, at: Int64, rhythmOnly: Bool = false)
}
