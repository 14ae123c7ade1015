// The detector's acceptance of a candidate once its merge window closes: the energy gate, the pulse's shape, the
// replacement and settling cases, and the beat becoming the last one. Integer only; called from the candidate logic
// (BeatDetector+Peaks.swift).
extension BeatDetector {
  /// The merge window has closed: the pending candidate is a beat.
  mutating func acceptPending(at index: Int64) {
    merge.isOpen = false
    let c = merge.candidate
    energy.forgetShape()
    // In poor signal a beat this soon after the last one, standing twice as high, shows the last one was noise.
    if quality == .poorSignal && !merge.replaces && replacesNoiseBeat(c) { merge.replaces = true }
    // Elgendi's block of interest: the peak's energy (its largest W1 average) must stand above the energy of
    // the last W2 plus the offset. Noise in diastole and on the downstroke does not; a weak early beat with the
    // pulse's shape may still be a beat, and so may an early one with a beat's steep upstroke.
    // (Asked only of a candidate turned away: the test costs more than the cases it serves.)
    let turnedAway = merge.needsShape ? !strongPulse(c) : !energy.stands(peakEnergy: c.energy) && !strongPulse(c)
    if turnedAway && !steepEarlyBeat(c) { return noteSecondary(c) }
    if !shapeFits(c) && !(turnedAway || steepEarlyBeat(c)) {
      noteSecondary(c)
      return
    }
    if merge.replaces {
      replaceLastBeat(with: c)
      return
    }
    if references.isEmpty && !rhythm.hasLastBeat && c.amplitude > c.slope &* parameters.settlingRiseSamples {
      return acceptSettlingBeat(c)
    }
    if references.isDecayed {
      // A beat after decayed references: if it is smaller than they were, the amplitude really dropped, so
      // the references come down to it (never further than the decay went); a large beat keeps them.
      let median = references.amplitudes.median
      if c.amplitude < median {
        let shareQ15 = max(references.decayQ15, (c.amplitude << 15) / max(1, median))
        references.amplitudes.scale(byQ15: shareQ15)
        references.slopes.scale(byQ15: shareQ15)
      }
      references.decayQ15 = 1 << 15
    }
    // (Tested here first: the call costs more than the test, once per beat.)
    if searchBack.has { recoverMissedBeats(before: c) }
    closeSecondarySpan(interval: c.index &- rhythm.lastBeatIndex)
    rhythm.lastIntervalPushed = false
    if rhythm.hasLastBeat {
      let interval = c.index &- rhythm.lastBeatIndex
      let expected = rhythm.intervals.median
      rhythm.regular = !rhythm.intervals.isEmpty
        && abs(interval &- expected) &* 256 < parameters.regularToleranceQ8 &* expected
      noteRhythm(interval)
      if interval <= parameters.longestIntervalSamples {
        rhythm.intervals.push(interval)
        rhythm.lastIntervalPushed = true
      }
    }
    rhythm.hasPreviousBeat = rhythm.hasLastBeat
    rhythm.previousBeatIndex = rhythm.lastBeatIndex
    references.amplitudes.push(c.amplitude)
    references.slopes.push(max(1, c.slope))
    becomeLastBeat(c, replacesPrevious: false)
  }

  /// The first beat after a restart rose with the filters' settling (`settlingRiseSeconds`): a finger put back while
  /// the light still climbs leaves the band-passed signal on a long slope, and the first peak's rise from its foot
  /// spans the slope. As a reference it would hold the next pulses' peaks below the hysteresis and the score for
  /// seconds. It is reported and the rhythm starts from it, but learning starts again after it: the range and the
  /// steepest slope seen until then were the settling's. Once per restart at most.
  @inline(never)
  mutating func acceptSettlingBeat(_ c: Candidate) {
    acquisition = Acquisition(settledAfter: clock.index &- 1)
    tracker.hysteresis = parameters.hysteresisFloorQ8
    report(c, replacesPrevious: false)
  }

  /// `c` is the last beat now (its interval and medians already noted): the references, timers and quality follow
  /// from it, and it is reported.
  mutating func becomeLastBeat(_ c: Candidate, replacesPrevious: Bool) {
    references.lastAmplitude = c.amplitude
    references.lastHeight = c.value
    updateReferences()
    watchBreath(foot: c.value &- c.amplitude)
    energy.setScale(forAmplitude: references.amplitude)
    report(c, replacesPrevious: replacesPrevious)
    updateQualityFromRhythm()
  }

  /// `c` is the last beat of the rhythm: the adaptation timers run from it, and it is reported.
  @inline(__always)
  mutating func report(_ c: Candidate, replacesPrevious: Bool) {
    rhythm.hasLastBeat = true
    rhythm.lastBeatIndex = c.index
    updateTimers()
    outbox.readyBeat = DetectedBeat(
      positionQ16: beatPositionQ16(c), reportedAt: position &- 1, amplitudeQ8: c.amplitude, upslopeQ8: c.slope,
      replacesPrevious: replacesPrevious, extraPeaks: UInt8(truncatingIfNeeded: secondary.extraNibbles & 0xF),
      shapeQ8: energy.lastShapeQ8)
  }

  /// Whether an early candidate is a short-coupled beat by its upstroke, whatever the energy gate and the template say.
  /// A beat that comes early had less time to fill: it is smaller than the recent beats, and it sits on the last
  /// one's downstroke, so the gate (which weighs it against that beat's energy) and the template (whose window holds
  /// that downstroke) both turn it away. What stays is the ventricle's stroke: its rise time (amplitude over steepest
  /// upslope) is no longer than the recent beats', so the slope ratio reaches the amplitude ratio. Only in a clean
  /// pulse (`cleanPulse`: an AF rhythm is poor by its rhythm alone) while it has no secondary wave (nothing else is
  /// expected between two beats), and only from half an interval after the last beat (no beat comes sooner in a
  /// regular rhythm; in an irregular one, an interval off in the last five, from `irregularEarliestBeatShare`) to the
  /// expected interval. Once per candidate the merge window closes on.
  func steepEarlyBeat(_ c: Candidate) -> Bool {
    guard cleanPulse, secondary.state == .absent, rhythm.hasLastBeat, !merge.replaces else { return false }
    let expected = rhythm.expected
    let since = c.index &- rhythm.lastBeatIndex
    let earliestQ8 = rhythm.isIrregular ? parameters.irregularEarliestBeatQ8 : parameters.earliestBeatQ8
    guard expected > 0, !comesTooSoon(since, expected: expected, earliestQ8: earliestQ8), since < expected else {
      return false
    }
    return hasSteepStroke(c)
  }

  /// Whether a candidate the energy gate turned away is a beat after all. The gate weighs a peak against the last
  /// 667 ms, which hold the beat before: a short-coupled beat (AF, a premature beat) had less time to fill and
  /// stands below that beat's energy. When no secondary wave is expected where it lies (a secondary wave is what the
  /// gate most often stops: the pulse has none, or in quiet spans it recurs at a delay this is not near,
  /// `noSecondaryExpected`) and the candidate has the pulse's shape (the template match asked of a beat off the
  /// rhythm), it is a beat. Once per candidate the gate rejects.
  mutating func strongPulse(_ c: Candidate) -> Bool {
    guard noSecondaryExpected(since: c.index &- rhythm.lastBeatIndex), energy.template.isReady, rhythm.expected > 0
    else { return false }
    return templateLikeness(c, now: clock.index &- 1, expected: rhythm.expected) == 2
  }

  /// How the window around `c` matches the pulse template (`EnergyGate.likeness`: 2 a match, 1 some likeness, 0 none,
  /// −1 not in the buffer yet), `now` being the working sample stepped. The window never reaches back past half an
  /// interval: a fast heart's previous beat is no part of this one.
  @inline(__always)
  mutating func templateLikeness(_ c: Candidate, now: Int64, expected: Int64) -> Int {
    let p = parameters
    return energy.likeness(
      peak: c.index, now: now, reach: expected > 0 ? expected / 2 : Int64.max / 4, matchQ8: p.templateMatchQ8,
      floorQ8: p.templateFloorQ8)
  }

  /// The pulse's shape (PulseTemplate.swift): a candidate off the rhythm (early or late) must look like the
  /// recent good pulses; one on the rhythm only needs some likeness, and if it is not a good match it marks the
  /// signal poor for the next beats. One late on the rhythm with a fair likeness (`templateLateCorrelation`) is a beat
  /// too, and marks nothing. Good matches on the rhythm teach the template. False: no beat. The detector acts on the
  /// shape of beats on the rhythm it samples (`templateOnTimeMask`); every beat's shape is measured once the template
  /// is ready and reported (`DetectedBeat.shapeQ8`), for the IBI cleaner.
  mutating func shapeFits(_ c: Candidate) -> Bool {
    let index = clock.index &- 1  // the working sample being stepped (acceptPending's)
    // A replacement is timed from the beat before the one it replaces.
    let sinceLast = c.index &- (merge.replaces ? rhythm.previousBeatIndex : rhythm.lastBeatIndex)
    let expected = rhythm.expected
    var onTime = rhythm.hasLastBeat && expected > 0
      && abs(sinceLast &- expected) &* 256 < parameters.regularToleranceQ8 &* expected
    if !onTime && expected > 0 && rhythm.anchorIndex > 0 {
      // On the rhythm of the last beat that was on time or looked like a pulse (the last beat may have been a
      // false one): a whole number of intervals after it.
      let since = c.index &- rhythm.anchorIndex
      let beats = max(1, (since &+ expected / 2) / expected)
      onTime = beats <= 3 && abs(since &- beats &* expected) &* 256 < parameters.regularToleranceQ8 &* expected
    }
    var misshapen = false
    rhythm.onTimeCount &+= onTime ? 1 : 0
    let sampled = rhythm.onTimeCount & BeatDetectorTuning.templateOnTimeMask == 0 || !energy.template.isReady
    if onTime || energy.template.isReady {
      // (Measured on every beat for the report; acted on off the rhythm and on the sampled beats on it.)
      let likeness = templateLikeness(c, now: index, expected: expected)
      if !onTime || sampled {
        if likeness == 2 {
          rhythm.anchorIndex = c.index
          if onTime && energy.template.wantsBeat() { energy.learnWindow() }
        } else if likeness == 1
          && (onTime || expected > 0 && sinceLast > expected
            && Int64(energy.lastShapeQ8) >= parameters.templateLateR2Q8)
        {
          // Late on the rhythm, the window reaches back into a long diastole, or a missed beat's tail, which no
          // template holds: a fair match does not mark the signal poor (and search-back, which asks for quiet spans,
          // may still give back the beat it shows missing).
          misshapen = onTime
        } else if likeness >= 0 {
          return false
        }
      }
    }
    if !onTime && !energy.template.isReady { teachEmptyTemplate(c, now: index, expected: expected) }
    rhythm.misshapenBits = ((rhythm.misshapenBits << 1) | (misshapen ? 1 : 0)) & 0xFF
    if onTime { rhythm.anchorIndex = c.index }
    return true
  }

  /// The template learns from beats on the rhythm, and an irregular rhythm (AF) has few: it may stay empty for the
  /// first 10-15 s, and the rules that ask for it (the zones' in an irregular rhythm, the weak early beat's) wait that
  /// long. While it is empty and the rhythm is clearly irregular (three of the last five intervals off) with quiet
  /// spans, a beat off the rhythm that passes the full score with a ventricle's stroke teaches it too. (In a merely
  /// irregular one, an interval off in the last five, noise records took false beats from what the template learnt.)
  @inline(never)
  mutating func teachEmptyTemplate(_ c: Candidate, now index: Int64, expected: Int64) {
    guard rhythm.isClearlyIrregular, quietSpans, passesScoreWithSteepStroke(c) else { return }
    if templateLikeness(c, now: index, expected: expected) == 2 { energy.learnWindow() }
  }
}
