import PulseDSP
import StressModel

/// Guesses which way the pulse points in a recording that does not say (no sidecar polarity, no flag).
///
/// Method: the first stretch of the recording (up to `PolarityGuess.seconds`) runs through the detector and
/// the IBI cleaner once per polarity. Read the right way up, the systolic peaks give a regular rhythm; upside
/// down the detector locks onto the feet or the dicrotic notches, which are blunter. When one reading fails to
/// lock (its clean intervals cover less than `failureShare` of what the other's cover), the other wins;
/// otherwise the one whose beats have the steeper upstroke relative to their size wins (the systolic upstroke
/// is the steepest edge of a pulse; the feet, read upside down, also give a rhythm, so coverage alone cannot
/// tell them apart). docs/detector.md gives how often it is right on the shared recordings.
public struct PolarityGuess: Sendable, Equatable {
  /// Seconds of the recording examined.
  public static let seconds = 60.0
  /// A reading whose clean coverage is below this share of the other's has failed to lock: coverage decides.
  /// Otherwise the slope test does.
  public static let failureShare = 0.5

  public var polarity: PulsePolarity
  /// Share of the examined stretch covered by clean intervals, read normally and inverted.
  public var normalCoverage: Double
  public var invertedCoverage: Double
  /// Median upslope of the beats relative to their amplitude (per second), read normally and inverted.
  public var normalSteepness: Double
  public var invertedSteepness: Double

  /// Examines `samples` (contiguous, from the start of a recording) at `rateHz`.
  public static func guess(
    samples: [Int32], rateHz: Double, detector: BeatDetectorConfiguration? = nil
  ) throws(BeatDetectorError) -> PolarityGuess {
    let count = min(samples.count, Int(seconds * rateHz))
    let stretch = Array(samples.prefix(count))
    let normal = try examine(stretch, rateHz: rateHz, polarity: .normal, template: detector)
    let inverted = try examine(stretch, rateHz: rateHz, polarity: .inverted, template: detector)
    let choice: PulsePolarity
    if min(normal.coverage, inverted.coverage) < failureShare * max(normal.coverage, inverted.coverage) {
      choice = normal.coverage >= inverted.coverage ? .normal : .inverted
    } else {
      choice = inverted.steepness > normal.steepness ? .inverted : .normal
    }
    return PolarityGuess(
      polarity: choice, normalCoverage: normal.coverage, invertedCoverage: inverted.coverage,
      normalSteepness: normal.steepness, invertedSteepness: inverted.steepness)
  }

  private static func examine(
    _ samples: [Int32], rateHz: Double, polarity: PulsePolarity, template: BeatDetectorConfiguration?
  ) throws(BeatDetectorError) -> (coverage: Double, steepness: Double) {
    var configuration = template ?? BeatDetectorConfiguration(sampleRateHz: rateHz)
    configuration.sampleRateHz = rateHz
    configuration.polarity = polarity
    var detector = try BeatDetector(configuration: configuration)
    var cleaner = IBICleaner()
    var cleanMs = 0.0
    var steepness: [Double] = []
    detector.process(samples) { event in
      guard case .beat(let beat) = event else {
        cleaner.breakSegment { if $0.isClean { cleanMs += $0.milliseconds } }
        return
      }
      if beat.amplitudeQ8 > 0 { steepness.append(Double(beat.upslopeQ8) / Double(beat.amplitudeQ8)) }
      // As PulseAnalyzer feeds its cleaner: recovered beats left out, a replacing beat moves the last one.
      if beat.recovered { return }
      if beat.replacesPrevious { return cleaner.replaceLastBeat(atSeconds: beat.position / rateHz) }
      cleaner.addBeat(atSeconds: beat.position / rateHz) { if $0.isClean { cleanMs += $0.milliseconds } }
    }
    cleaner.finish { if $0.isClean { cleanMs += $0.milliseconds } }
    let duration = Double(samples.count) / rateHz
    let median = Statistics.median(steepness) ?? 0
    return (duration > 0 ? cleanMs / 1000 / duration : 0, median * detector.workingRateHz)
  }
}
