// The detector's peak logic at the working rate: candidates from the tracker, the rules that judge them, the
// rhythm and the adaptation timers (acceptance: BeatDetector+Accept.swift). Integer only; called from
// `BeatDetector.stepWorking`.
extension BeatDetector {
  // MARK: - Learning

  /// While no reference exists, the range and steepest slope since the restart set the hysteresis and the
  /// acquisition test.
  @inline(__always)
  mutating func learnRange(value: Int64, slope: Int64, index: Int64) {
    guard index > acquisition.settledAfter else { return }
    acquisition.observe(value: value, slope: slope)
    tracker.hysteresis = max(parameters.hysteresisFloorQ8, (acquisition.range &* parameters.hysteresisQ8) >> 8)
    energy.setScale(forAmplitude: acquisition.range)
  }

  // MARK: - Candidates

  /// A confirmed peak: merged into the pending one if it is a higher peak within the merge window, else
  /// judged and, if it passes, kept pending until the merge window closes. A peak that took longer than
  /// `confirmSamples` to fall by the hysteresis is not taken as it comes (systolic peaks fall fast; a plateau or
  /// a slow drift does not), which also bounds the latency. Its knee may still be the pulse's (one on a
  /// respiratory upslope): it goes to search-back, which reports it only if the next beat shows one missing.
  mutating func candidate(at index: Int64) {
    let slope = tracker.takeUpSlope()
    guard !contact.rawBad, index > acquisition.settledAfter else { return }
    guard index &- tracker.peakIndex <= parameters.confirmSamples else {
      if references.isEmpty {
        // While learning, a peak this slow says the range seen so far is a slope, not the pulse (Acquisition).
        acquisition.forgetRange()
      } else {
        noteRejected(tracker.kneeCandidate(slope: slope))
      }
      return
    }
    if merge.isOpen {
      let t = tracker
      if t.peakIndex &- merge.candidate.index <= parameters.mergeSamples && t.peakValue > merge.candidate.value {
        merge.candidate.index = t.peakIndex
        merge.candidate.value = t.peakValue
        merge.candidate.before = t.peakBefore
        merge.candidate.after = t.peakAfter
        merge.candidate.amplitude = t.peakValue &- merge.candidate.trough
        merge.candidate.slope = max(merge.candidate.slope, slope)
        merge.candidate.energy = t.energy
        merge.energyTaken = t.energyTaken
        // A weak early candidate that merged into a peak the score takes is a beat like any other.
        if merge.needsShape && passesScore(merge.candidate) { merge.needsShape = false }
      }
      return
    }
    let next = tracker.candidate(slope: slope)
    if judge(next) {
      merge.candidate = next
      merge.energyTaken = tracker.energyTaken
      merge.isOpen = true
    } else {
      noteSecondary(next)
    }
  }

  /// The rules. Ratios are Q8; products of two ratios Q16. (`mutating` only so that `self` is passed by
  /// reference: as a plain method the optimiser copied the whole detector for every call.)
  mutating func judge(_ c: Candidate) -> Bool {
    let p = parameters
    guard c.amplitude >= p.minimumAmplitudeQ8 else { return false }
    let sinceLast = c.index &- rhythm.lastBeatIndex
    merge.replaces = false
    merge.needsShape = false
    if rhythm.hasLastBeat && sinceLast < p.refractorySamples {
      // The size rules ask for a peak larger than the beat (the early-beat rule the least), the height rule for one
      // standing twice as high, or in poor signal 1.2 times as high on the rhythm after a beat off it.
      merge.replaces = outgrowsLastBeat(c, atLeastQ8: p.onRhythmReplaceAmplitudeQ8)
        && (replacesLastBeat(c, atLeastQ8: p.replaceAmplitudeQ8) || replacesEarlyBeat(c, expected: rhythm.expected))
        || standsAboveLastBeat(c) || standsAboveOnRhythm(c)
      return merge.replaces
    }
    guard !references.isEmpty else {
      // Learning: the candidate must span half the range and have half the steepest slope seen so far.
      return c.amplitude &* 2 >= acquisition.rangeMax &- acquisition.rangeMin
        && c.slope &* 2 >= acquisition.steepestSlope
    }
    var threshold = p.scoreThresholdQ16
    if rhythm.hasLastBeat {
      let expected = rhythm.intervals.isEmpty ? 0 : rhythm.intervals.median
      let (zone, heightZone) = secondaryZones(expected: expected)
      // (The size test first: most candidates here are secondary waves, smaller than the beat.)
      if sinceLast < zone && outgrowsLastBeat(c, atLeastQ8: p.onRhythmReplaceAmplitudeQ8)
        && replacesEarlyBeat(c, expected: expected)
      {
        merge.replaces = true
        return true
      }
      switch secondary.state {
      case .unknown:
        // Beyond the zone, a late reflected wave (slow heart, compliant arteries) is still lower than the last
        // beat and rises less than it did. Without this a detector that once took such waves for beats stays
        // locked at twice the heart rate.
        let late = sinceLast >= zone && sinceLast < heightZone && references.lastHeight > 0
          && c.value &* 256 < p.secondaryRatioQ8 &* references.lastHeight && c.amplitude < references.lastAmplitude
        // Secondary-wave zone: only a beat as large and as tall as the last one passes.
        let inZone = sinceLast < zone
          && (c.amplitude &* 256 < p.secondaryRatioQ8 &* references.lastAmplitude
            || references.lastHeight > 0 && c.value &* 256 < p.secondaryRatioQ8 &* references.lastHeight)
        if late || inZone { return zoneCandidate(c) }
      case .recurring:
        if isRecurringSecondary(c, since: sinceLast) { return false }
      case .absent:
        break
      }
      // A weak beat on time in a regular rhythm needs less score; its peak still stands above the filtered zero
      // (a noise peak on the foot of the coming pulse often does not).
      if sinceLast >= zone && rhythm.regular && expected > 0 && c.value > 0
        && abs(sinceLast &- expected) &* 256 < p.regularToleranceQ8 &* expected
      {
        threshold = p.relaxedScoreThresholdQ16
      }
    }
    // Decayed references only help a candidate that falls on the rhythm (near a whole number of expected
    // intervals after the last beat): after a stretch of motion, noise off the beat stays rejected.
    var amplitudeBase = references.amplitude
    var slopeBase = references.slope
    if references.isDecayed && !onRhythm(sinceLast) {
      amplitudeBase = references.amplitudes.median
      slopeBase = references.slopes.median
    }
    let amplitudeRatio = ratioQ8(c.amplitude, amplitudeBase)
    let slopeRatio = ratioQ8(c.slope, slopeBase)
    if amplitudeRatio < p.featureFloorQ8 || slopeRatio < p.featureFloorQ8 { return false }
    if amplitudeRatio &* slopeRatio >= threshold { return true }
    // An early candidate too weak for the score (a short-coupled beat in AF, a premature beat: its ventricle had less
    // time to fill), while the pulse has no secondary wave and the signal is good: a beat only if it has the pulse's
    // shape, which `acceptPending` asks once the merge window closes (the window after the peak is in the buffer
    // then). A late weak candidate is left to search-back, which does not let it teach the rhythm or the HRV.
    guard secondary.state == .absent, quality == .good, energy.template.isReady, sinceLast < rhythm.expected
    else { return false }
    merge.needsShape = true
    return true
  }

  /// Whether a candidate the secondary-wave zones turned away while the pulse's secondary wave is unknown goes on to
  /// the energy gate and the template all the same. In an irregular rhythm (an interval off in the last five) the
  /// state stays unknown for long: AF's short-coupled beats come at any delay and count as peaks after a beat. The
  /// zones then turn away full-size beats that come early and sit low on the last one's downstroke. A regular rhythm
  /// whose pulse has a faint, wandering secondary wave stays unknown too, and there the zones turned away a premature
  /// beat as early as 0.57 of the interval. In a clean pulse, one that passes the full score with a ventricle's stroke
  /// (slope ratio ≥ amplitude ratio: a reflected wave rises slowly) is judged as any other candidate: the gate and the
  /// template decide. In a regular rhythm only from half an interval on (`earliestBeatShare`: no beat of it, not even
  /// a premature one, comes sooner).
  @inline(never)
  mutating func zoneCandidate(_ c: Candidate) -> Bool {
    guard cleanPulse && energy.template.isReady && rhythm.expected > 0 else { return false }
    if !rhythm.isIrregular && comesTooSoon(c.index &- rhythm.lastBeatIndex, expected: rhythm.expected) { return false }
    return passesScoreWithSteepStroke(c)
  }

  /// Whether `since` working samples after the last beat is within `phaseTolerance` of a whole number of
  /// expected intervals (true when no interval is known yet).
  func onRhythm(_ since: Int64) -> Bool {
    guard rhythm.hasLastBeat, !rhythm.intervals.isEmpty else { return true }
    let expected = rhythm.intervals.median
    let beats = max(1, (since &+ expected / 2) / expected)
    return abs(since &- beats &* expected) &* 256 < parameters.phaseToleranceQ8 &* expected
  }

  /// Whether `c` passes the score against the references as they stand (each feature above the floor, the product
  /// above the normal threshold): what a candidate must show to replace a beat, or to need no shape match.
  @inline(__always)
  func passesScore(_ c: Candidate) -> Bool {
    passesScore(
      amplitudeRatioQ8: ratioQ8(c.amplitude, references.amplitude), slopeRatioQ8: ratioQ8(c.slope, references.slope))
  }

  @inline(__always)
  func passesScore(amplitudeRatioQ8 a: Int64, slopeRatioQ8 s: Int64) -> Bool {
    let p = parameters
    return a >= p.featureFloorQ8 && s >= p.featureFloorQ8 && a &* s >= p.scoreThresholdQ16
  }

  /// `passesScore` and `hasSteepStroke` together, the two ratios taken once: a full beat with a ventricle's stroke.
  @inline(__always)
  func passesScoreWithSteepStroke(_ c: Candidate) -> Bool {
    let a = ratioQ8(c.amplitude, references.amplitude), s = ratioQ8(c.slope, references.slope)
    return s >= a && passesScore(amplitudeRatioQ8: a, slopeRatioQ8: s)
  }

  /// Whether `c` rose with a ventricle's stroke: its rise time (amplitude over steepest upslope) is no longer than the
  /// recent beats', so its slope ratio reaches its amplitude ratio against the references. A reflected wave or a
  /// drift rises slowly.
  @inline(__always)
  func hasSteepStroke(_ c: Candidate) -> Bool {
    ratioQ8(c.slope, references.slope) >= ratioQ8(c.amplitude, references.amplitude)
  }

  /// Whether `since` (samples after a beat) is sooner than any beat comes after another (`earliestBeatShare` of the
  /// expected interval, or the share `earliestQ8` given).
  @inline(__always)
  func comesTooSoon(_ since: Int64, expected: Int64) -> Bool {
    comesTooSoon(since, expected: expected, earliestQ8: parameters.earliestBeatQ8)
  }

  @inline(__always)
  func comesTooSoon(_ since: Int64, expected: Int64, earliestQ8: Int64) -> Bool {
    since &* 256 < earliestQ8 &* expected
  }

  /// value / reference in Q8, clamped to 0...2^16 (a ratio of 256 is plenty to pass any test).
  @inline(__always)
  func ratioQ8(_ value: Int64, _ reference: Int64) -> Int64 {
    guard value > 0 else { return 0 }
    guard reference > 0 else { return 1 << 16 }
    return min(1 << 16, (value << 8) / reference)
  }

  // MARK: - Rhythm

  /// Records whether an interval continues the rhythm (within `rhythmTolerance` of the expected interval,
  /// or of the previous one while none is expected yet).
  mutating func noteRhythm(_ interval: Int64) {
    let reference = rhythm.intervals.isEmpty ? rhythm.lastInterval : rhythm.intervals.median
    let off = interval > parameters.longestIntervalSamples
      || (reference > 0 && abs(interval &- reference) &* 256 > parameters.rhythmToleranceQ8 &* reference)
    rhythm.offBits = ((rhythm.offBits << 1) | (off ? 1 : 0)) & 0b11111
    rhythm.count = min(5, rhythm.count + 1)
    rhythm.lastInterval = interval
  }

  /// Whether the pulse stands clear of noise: the signal is good, or poor only because the rhythm is irregular (AF,
  /// runs of premature beats) while the spans between beats stay quiet and the recent beats had the pulse's shape.
  /// Early beats are looked for here, and an irregular rhythm is where they come.
  var cleanPulse: Bool { quality == .good || quality == .poorSignal && quietSpans }

  /// The spans between the last eight beats held at most `quietExtraPeaks` extra peaks, and none of those beats was
  /// misshapen: what returns a poor signal to good, what search-back asks, and what makes a poor signal a clean pulse.
  var quietSpans: Bool { secondary.extraTotal <= BeatDetectorTuning.quietExtraPeaks && rhythm.misshapenBits == 0 }

  /// Beats count as good signal once two intervals in a row continue the rhythm; when three of the last five
  /// do not, the beats are likely motion or noise: poor signal (the beats are still reported; the IBI
  /// cleaner judges them). Clipped stays clipped.
  mutating func updateQualityFromRhythm() {
    guard quality != .clipped else { return }
    // A beat on the rhythm whose shape is unlike the pulse's: noise or motion rides on the pulse, for any of the
    // last eight beats.
    let misshapen = rhythm.misshapenBits != 0
    let noisy = secondary.extraTotal >= BeatDetectorTuning.noisyExtraPeaks || misshapen
    if quality == .good {
      if rhythm.isClearlyIrregular || noisy {
        setQuality(.poorSignal, at: position &- 1, rhythmOnly: !noisy)
      }
    } else if rhythm.isSteady && quietSpans {
      setQuality(.good, at: position &- 1)
    }
  }

  /// Sub-sample peak by a parabola through the three samples around it, mapped to the input timeline.
  mutating func beatPositionQ16(_ c: Candidate) -> Int64 {
    // Offset of the vertex from the middle sample, in working samples × 65 536, within ±0.5.
    let curvature = c.before &- 2 &* c.value &+ c.after
    var offsetQ16: Int64 = 0
    if curvature < 0 {
      offsetQ16 = ((c.before &- c.after) << 15) / curvature
      offsetQ16 = min(1 << 15, max(-(1 << 15), offsetQ16))
    }
    let m = parameters.decimationFactor
    return ((clock.origin &+ c.index &* m) << 16) &+ offsetQ16 &* m &- parameters.timeCorrectionQ16
  }

  // MARK: - Adaptation

  /// Beats are overdue: decay the references; after longer, declare lock lost and learn afresh.
  mutating func overdue(at index: Int64) {
    guard !contact.rawBad else { return }
    if index > rhythm.lostAt {
      restart(at: index, settle: false)
      setQuality(.poorSignal, at: position &- 1)
      return
    }
    if !references.isEmpty && references.decayQ15 > parameters.decayFloorQ15 {
      references.decayQ15 = max(parameters.decayFloorQ15, (references.decayQ15 &* parameters.decayStepQ15) >> 15)
      updateReferences()
    }
  }

  mutating func updateReferences() {
    references.update()
    tracker.hysteresis = max(parameters.hysteresisFloorQ8, (references.amplitude &* parameters.hysteresisQ8) >> 8)
  }

  /// Recomputes when the references start to decay and when lock counts as lost, from the last beat (or the
  /// restart) and the expected interval.
  mutating func updateTimers() {
    let p = parameters
    let expected = rhythm.intervals.isEmpty ? p.defaultIntervalSamples : rhythm.intervals.median
    let since = rhythm.hasLastBeat ? rhythm.lastBeatIndex : acquisition.settledAfter
    rhythm.decayFrom = since &+ max(p.decayAfterSamples, expected &* 2)
    rhythm.lostAt = since &+ max(p.lostAfterSamples, (expected &* 5) >> 1)
    if !rhythm.hasLastBeat { rhythm.decayFrom = min(rhythm.decayFrom, rhythm.lostAt) }
  }

  /// Forgets what was learnt (references, rhythm, pending candidate) and learns again from `index`, after
  /// the settling time if `settle`.
  mutating func restart(at index: Int64, settle: Bool) {
    references = PulseReferences()
    rhythm = RhythmTracker()
    secondary = SecondaryWaveWatch()
    searchBack = SearchBack()
    energy.resetTemplate()
    merge.isOpen = false
    acquisition = Acquisition(settledAfter: index &+ (settle ? parameters.settleSamples : 0))
    tracker.hysteresis = parameters.hysteresisFloorQ8
    updateTimers()
  }
}
