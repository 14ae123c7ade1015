// A peak soon after a beat that shows the beat was a noise or shoulder peak ahead of the real pulse (low perfusion,
// motion): inside the refractory period, a peak clearly larger than the beat, or one standing twice as high above the
// baseline (in poor signal up to half an expected interval); inside the refractory period or the secondary-wave zone, a
// larger peak that the rhythm points to when the beat came early; in poor signal, a somewhat higher one that the rhythm
// points to when the beat came off it. It is the merge window's rule (the higher peak wins)
// carried past the merge window after the fact: the peak replaces the beat, reported with
// `DetectedBeat.replacesPrevious`, and every reference the replaced beat set is set again from it. Per candidate;
// integer only.
extension BeatDetector {
  /// Whether `c`'s amplitude is at least `minimumQ8` (Q8) times the last beat's: the first test of every replacement,
  /// and the cheap one (`judge` asks it before calling the rules, since most candidates near a beat are smaller).
  @inline(__always)
  func outgrowsLastBeat(_ c: Candidate, atLeastQ8 minimumQ8: Int64) -> Bool {
    c.amplitude &* 256 >= minimumQ8 &* references.lastAmplitude
  }

  /// Whether candidate `c` replaces the last beat by its size: at least `minimumQ8` (Q8) times that beat's amplitude
  /// (`replaceAmplitudeRatio` inside the refractory period), and passing the score against the references. (A
  /// secondary wave is smaller than its own beat; a real beat cannot follow a real beat this closely.)
  mutating func replacesLastBeat(_ c: Candidate, atLeastQ8 minimumQ8: Int64) -> Bool {
    outgrowsLastBeat(c, atLeastQ8: minimumQ8) && mayReplaceLastBeat(c)
  }

  /// Whether `c` may take the last beat's place at all: there is a last beat, and `c` passes the score against the
  /// references. Every replacement rule asks it. The last beat may be the first since a restart (no interval depends
  /// on it yet): taken against a range seen for a fraction of a second, it may be a ripple on the light still
  /// settling after a finger was put back, and the pulse it kept out is the larger peak.
  @inline(__always)
  mutating func mayReplaceLastBeat(_ c: Candidate) -> Bool {
    guard rhythm.hasLastBeat, !references.isEmpty else { return false }
    return passesScore(c)
  }

  /// Whether candidate `c`, inside the refractory period or the secondary-wave zone after the last beat, replaces
  /// it: that beat came before the expected interval, `c` lands nearer it from the beat before (and within
  /// `regularTolerance`), and `c` is at least `onRhythmReplaceAmplitudeRatio` times as large and passes the score.
  /// A noise peak taken ahead of the pulse otherwise keeps the real pulse out (its zone asks only half its size of
  /// the next peak, but the energy gate, the template and the rhythm then see the pulse as a second, early beat).
  /// A premature beat is followed by nothing on the old rhythm, and a real beat after a real beat is not on it.
  @inline(never)
  mutating func replacesEarlyBeat(_ c: Candidate, expected: Int64) -> Bool {
    rhythmPointsTo(c, expected: expected, lastEarlyByQ8: 0)
      && replacesLastBeat(c, atLeastQ8: parameters.onRhythmReplaceAmplitudeQ8)
  }

  /// Whether the rhythm points to `c` rather than to the last beat: that beat came before the `expected` interval
  /// from the beat before, by at least `minimumQ8` (Q8) of it, and `c` lands nearer that interval and within
  /// `regularTolerance` of it. The rhythm test of both on-rhythm replacements.
  @inline(__always)
  func rhythmPointsTo(_ c: Candidate, expected: Int64, lastEarlyByQ8 minimumQ8: Int64) -> Bool {
    guard rhythm.hasPreviousBeat, expected > 0 else { return false }
    let early = expected &- (rhythm.lastBeatIndex &- rhythm.previousBeatIndex)
    let offset = abs(c.index &- rhythm.previousBeatIndex &- expected)
    return early > 0 && offset < early && offset &* 256 < parameters.regularToleranceQ8 &* expected
      && early &* 256 >= minimumQ8 &* expected
  }

  /// Whether candidate `c`, inside the refractory period, replaces the last beat by its height: its peak stands at
  /// least `tallerPeakReplaceRatio` times as high above the filtered baseline as the beat's, and it passes the score.
  /// Two peaks this close are not two beats, and the systolic peak is the taller: a noise peak taken on the pulse's
  /// foot (low perfusion) stands near the baseline, however steep its own rise, and the amplitude rules cannot see
  /// that (the pulse's rise is measured from the noise peak's trough, so it may even be the smaller).
  @inline(__always)
  mutating func standsAboveLastBeat(_ c: Candidate) -> Bool {
    references.lastHeight > 0 && c.value &* 256 >= parameters.tallerPeakReplaceQ8 &* references.lastHeight
      && mayReplaceLastBeat(c)
  }

  /// Whether candidate `c`, a beat by the rules and less than half an expected interval after the last beat, replaces
  /// it by its height (`standsAboveLastBeat`, or `standsAboveOnRhythm`); asked in poor signal only. No beat comes that
  /// early, not even a premature one (20–35 % early), so one of the two is noise, and in noise the taller is the
  /// pulse. In good signal the taller peak that close is more often motion after a real beat.
  @inline(never)
  mutating func replacesNoiseBeat(_ c: Candidate) -> Bool {
    comesTooSoon(c.index &- rhythm.lastBeatIndex, expected: rhythm.expected)
      && (standsAboveLastBeat(c) || standsAboveOnRhythm(c))
  }

  /// Whether candidate `c`, in poor signal soon after the last beat, replaces it because the rhythm and the height
  /// both point to it: the last beat came off the rhythm, early (more than `regularTolerance` before the expected
  /// interval from the beat before), `c` lands within that tolerance (`rhythmPointsTo`), its peak stands at least
  /// `onRhythmReplaceAmplitudeRatio` times as high above the filtered baseline, and it passes the score. A detector
  /// locked on noise peaks ahead of a weak pulse otherwise stays there: each noise beat is early, the pulse after it
  /// is on time but seldom twice as high (`standsAboveLastBeat`), and measured from the noise peak's trough its rise
  /// may be the smaller. A true beat on the rhythm is never replaced this way. Only at working rates that resolve a
  /// peak's height (`BeatDetectorTuning.heightResolvedRateHz`).
  @inline(never)
  mutating func standsAboveOnRhythm(_ c: Candidate) -> Bool {
    let p = parameters
    guard quality == .poorSignal, p.heightsResolved, references.lastHeight > 0 else { return false }
    return rhythmPointsTo(c, expected: rhythm.expected, lastEarlyByQ8: p.regularToleranceQ8)
      && c.value &* 256 >= p.onRhythmReplaceAmplitudeQ8 &* references.lastHeight && mayReplaceLastBeat(c)
  }

  /// `c` takes the last beat's place: its interval from the beat before, its amplitude and slope replace the last
  /// beat's in the running medians, and it is reported with `replacesPrevious`.
  mutating func replaceLastBeat(with c: Candidate) {
    // (The first beat since a restart has no interval or rhythm bit to take back.)
    if rhythm.hasPreviousBeat { replaceLastInterval(with: c.index &- rhythm.previousBeatIndex) }
    references.amplitudes.replaceNewest(c.amplitude)
    references.slopes.replaceNewest(max(1, c.slope))
    becomeLastBeat(c, replacesPrevious: true)
  }

  /// The replaced beat's interval and rhythm bit give way to `interval`, the replacement's from the beat before.
  mutating func replaceLastInterval(with interval: Int64) {
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
  }
}
