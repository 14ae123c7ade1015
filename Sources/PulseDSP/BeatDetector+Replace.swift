// A peak inside the refractory period after a beat, clearly larger than that beat: the beat was a noise or shoulder
// peak ahead of the real pulse (low perfusion, motion), and the refractory period would throw the pulse away. It
// is the merge window's rule (the higher peak wins) carried to the refractory period after the fact: the larger
// peak replaces the beat, reported with `DetectedBeat.replacesPrevious`, and every reference the replaced beat set
// is set again from it. Per candidate; integer only.
extension BeatDetector {
  /// Whether candidate `c`, inside the refractory period after the last beat, replaces that beat: at least
  /// `replaceAmplitudeRatio` times its amplitude, and passing the score against the references. (A secondary wave is
  /// smaller than its own beat; a real beat cannot follow a real beat this closely.)
  mutating func replacesLastBeat(_ c: Candidate) -> Bool {
    guard rhythm.hasLastBeat, rhythm.hasPreviousBeat, !references.isEmpty else { return false }
    let p = parameters
    guard c.amplitude &* 256 >= p.replaceAmplitudeQ8 &* references.lastAmplitude else { return false }
    let amplitudeRatio = ratioQ8(c.amplitude, references.amplitude)
    let slopeRatio = ratioQ8(c.slope, references.slope)
    return amplitudeRatio >= p.featureFloorQ8 && slopeRatio >= p.featureFloorQ8
      && amplitudeRatio &* slopeRatio >= p.scoreThresholdQ16
  }

  /// `c` takes the last beat's place: its interval from the beat before, its amplitude and slope replace the last
  /// beat's in the running medians, and it is reported with `replacesPrevious`.
  mutating func replaceLastBeat(with c: Candidate) {
    let interval = c.index &- rhythm.previousBeatIndex
    let expected = rhythm.intervals.median
    if rhythm.lastIntervalPushed {
      rhythm.intervals.replaceNewest(interval)
    } else if interval <= parameters.longestIntervalSamples {
      rhythm.intervals.push(interval)
      rhythm.lastIntervalPushed = true
    }
    rhythm.regular = abs(interval &- expected) &* 256 < parameters.regularToleranceQ8 &* expected
    // The replaced beat's rhythm bit is taken back and this one's noted.
    rhythm.offBits >>= 1
    rhythm.count = max(0, rhythm.count - 1)
    noteRhythm(interval)
    references.amplitudes.replaceNewest(c.amplitude)
    references.slopes.replaceNewest(max(1, c.slope))
    becomeLastBeat(c, replacesPrevious: true)
  }
}
