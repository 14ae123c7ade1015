import PulseDSP
import StressModel

/// A beat as the analysis reports it: the detector's fixed-point beat plus its time in stream seconds.
public struct AnalysisBeat: Sendable, Equatable {
  public var beat: DetectedBeat
  /// The systolic peak, stream seconds (sub-sample).
  public var seconds: Double
  /// From the peak to the sample that reported it, seconds.
  public var latencySeconds: Double

  public init(beat: DetectedBeat, seconds: Double, latencySeconds: Double) {
    self.beat = beat
    self.seconds = seconds
    self.latencySeconds = latencySeconds
  }

  /// The peak rounded to the nearest stream sample.
  public var sampleIndex: Int64 { beat.sampleIndex }
}

/// What `PulseAnalyzer` reports, in stream order.
public enum AnalysisEvent: Sendable, Equatable {
  /// A systolic peak.
  case beat(AnalysisBeat)
  /// An inter-beat interval with the cleaner's verdict (a few beats after its end beat).
  case interval(InterBeatInterval)
  /// The detector's view of the signal changed at `atSeconds`; `rhythmOnly`: a poor signal for the rhythm alone, the
  /// pulse clean (`BeatDetectorEvent.quality`).
  case quality(SignalQuality, atSeconds: Double, rhythmOnly: Bool = false)
  /// `samples` were lost at `atSeconds`; the chain restarted after them.
  case gap(samples: Int, atSeconds: Double)
  /// A finished HRV window with its quality and, when good, its stress score.
  case window(HRVWindowSummary)
}
