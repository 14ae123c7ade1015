// The detector's peak logic at the working rate: the hysteresis tracker, the candidate rules, acceptance and
// the adaptation timers. Integer only; called from `BeatDetector.stepWorking`.
extension BeatDetector {
  // MARK: - Peak/trough tracker

  /// While no reference exists, the range and steepest slope since the restart set the hysteresis and the
  /// acquisition test.
  @inline(__always)
  mutating func learnRange(value: Int64, slope: Int64, index: Int64) {
    guard index > settledAfter else { return }
    if value > rangeMax { rangeMax = value }
    if value < rangeMin { rangeMin = value }
    if slope > steepestSlope { steepestSlope = slope }
    let range = rangeMax > rangeMin ? rangeMax &- rangeMin : 0
    hysteresis = max(parameters.hysteresisFloorQ8, (range &* parameters.hysteresisQ8) >> 8)
  }

  /// Alternates between climbing to a peak and descending to a trough; a peak is a candidate once the signal
  /// has fallen `hysteresis` below it.
  @inline(__always)
  mutating func track(value: Int64, slope: Int64, index: Int64) {
    if rising {
      if slope > upSlope { upSlope = slope }
      if value > peakValue {
        peakValue = value
        peakIndex = index
        peakBefore = value &- slope
        needAfter = true
        return
      }
      if needAfter {
        peakAfter = value
        needAfter = false
      }
      if value < peakValue &- hysteresis {
        candidate(at: index)
        rising = false
        valley = value
      }
    } else if value < valley {
      valley = value
    } else if value > valley &+ hysteresis {
      trough = valley
      rising = true
      peakValue = value
      peakIndex = index
      peakBefore = value &- slope
      needAfter = true
      upSlope = max(0, slope)
    }
  }

  // MARK: - Candidates

  /// A confirmed peak: merged into the pending one if it is a higher peak within the merge window, else
  /// judged and, if it passes, kept pending until the merge window closes. A peak that took longer than
  /// `confirmSamples` to fall by the hysteresis is no systolic peak (those fall fast): a plateau, a slow
  /// drift. Dropping it also bounds the latency.
  mutating func candidate(at index: Int64) {
    let slope = upSlope
    upSlope = 0
    guard !rawBad, index > settledAfter, index &- peakIndex <= parameters.confirmSamples else { return }
    if hasPending {
      if peakIndex &- pending.index <= parameters.mergeSamples && peakValue > pending.value {
        pending.index = peakIndex
        pending.value = peakValue
        pending.before = peakBefore
        pending.after = peakAfter
        pending.amplitude = peakValue &- pending.trough
        pending.slope = max(pending.slope, slope)
      }
      return
    }
    let next = Candidate(
      index: peakIndex, value: peakValue, before: peakBefore, after: peakAfter,
      amplitude: peakValue &- trough, slope: slope, trough: trough)
    if judge(next) {
      pending = next
      hasPending = true
    }
  }

  /// The rules. Ratios are Q8; products of two ratios Q16. (`mutating` only so that `self` is passed by
  /// reference: as a plain method the optimiser copied the whole detector for every call.)
  mutating func judge(_ c: Candidate) -> Bool {
    let p = parameters
    guard c.amplitude >= p.minimumAmplitudeQ8 else { return false }
    let sinceLast = c.index &- lastBeatIndex
    if hasLastBeat && sinceLast < p.refractorySamples { return false }
    guard !amplitudes.isEmpty else {
      // Learning: the candidate must span half the range and have half the steepest slope seen so far.
      return c.amplitude &* 2 >= rangeMax &- rangeMin && c.slope &* 2 >= steepestSlope
    }
    var threshold = p.scoreThresholdQ16
    if hasLastBeat {
      let expected = intervals.isEmpty ? 0 : intervals.median
      let zone = max(p.zoneSamples, (expected &* p.zoneShareQ8) >> 8)
      // Beyond the zone, a late reflected wave (slow heart, compliant arteries) is still lower than the last
      // beat and rises less than it did. Without this a detector that once took such waves for beats stays
      // locked at twice the heart rate.
      let heightZone = max(p.heightZoneSamples, (expected &* p.zoneShareQ8) >> 8)
      if sinceLast >= zone && sinceLast < heightZone && lastHeight > 0
        && c.value &* 256 < p.secondaryRatioQ8 &* lastHeight && c.amplitude < lastAmplitude
      {
        return false
      }
      if sinceLast < zone {
        // Secondary-wave zone: only a beat as large and as tall as the last one passes.
        if c.amplitude &* 256 < p.secondaryRatioQ8 &* lastAmplitude { return false }
        if lastHeight > 0 && c.value &* 256 < p.secondaryRatioQ8 &* lastHeight { return false }
      } else if regular && expected > 0 && abs(sinceLast &- expected) &* 256 < p.regularToleranceQ8 &* expected {
        threshold = p.relaxedScoreThresholdQ16
      }
    }
    // Decayed references only help a candidate that falls on the rhythm (near a whole number of expected
    // intervals after the last beat): after a stretch of motion, noise off the beat stays rejected.
    var amplitudeBase = amplitudeReference
    var slopeBase = slopeReference
    if decayQ15 < 1 << 15 && !onRhythm(sinceLast) {
      amplitudeBase = amplitudes.median
      slopeBase = slopes.median
    }
    let amplitudeRatio = ratioQ8(c.amplitude, amplitudeBase)
    let slopeRatio = ratioQ8(c.slope, slopeBase)
    if amplitudeRatio < p.featureFloorQ8 || slopeRatio < p.featureFloorQ8 { return false }
    return amplitudeRatio &* slopeRatio >= threshold
  }

  /// Whether `since` working samples after the last beat is within `phaseTolerance` of a whole number of
  /// expected intervals (true when no interval is known yet).
  func onRhythm(_ since: Int64) -> Bool {
    guard hasLastBeat, !intervals.isEmpty else { return true }
    let expected = intervals.median
    let beats = max(1, (since &+ expected / 2) / expected)
    return abs(since &- beats &* expected) &* 256 < parameters.phaseToleranceQ8 &* expected
  }

  /// value / reference in Q8, clamped to 0...2^16 (a ratio of 256 is plenty to pass any test).
  @inline(__always)
  func ratioQ8(_ value: Int64, _ reference: Int64) -> Int64 {
    guard value > 0 else { return 0 }
    guard reference > 0 else { return 1 << 16 }
    return min(1 << 16, (value << 8) / reference)
  }

  // MARK: - Acceptance

  /// The merge window has closed: the pending candidate is a beat.
  mutating func acceptPending(at index: Int64) {
    hasPending = false
    let c = pending
    if decayQ15 < 1 << 15 {
      // A beat after decayed references: if it is smaller than they were, the amplitude really dropped, so
      // the references come down to it (never further than the decay went); a large beat keeps them.
      if c.amplitude < amplitudes.median {
        let shareQ15 = max(decayQ15, (c.amplitude << 15) / max(1, amplitudes.median))
        amplitudes.scale(byQ15: shareQ15)
        slopes.scale(byQ15: shareQ15)
      }
      decayQ15 = 1 << 15
    }
    if hasLastBeat {
      let interval = c.index &- lastBeatIndex
      let expected = intervals.median
      regular = !intervals.isEmpty
        && abs(interval &- expected) &* 256 < parameters.regularToleranceQ8 &* expected
      noteRhythm(interval)
      if interval <= parameters.longestIntervalSamples { intervals.push(interval) }
    }
    amplitudes.push(c.amplitude)
    slopes.push(max(1, c.slope))
    hasLastBeat = true
    lastBeatIndex = c.index
    lastAmplitude = c.amplitude
    lastHeight = c.value
    updateReferences()
    updateTimers()
    readyBeat = DetectedBeat(
      positionQ16: beatPositionQ16(c), reportedAt: position &- 1, amplitudeQ8: c.amplitude, upslopeQ8: c.slope)
    updateQualityFromRhythm()
  }

  // MARK: - Rhythm

  /// Records whether an interval continues the rhythm (within `rhythmTolerance` of the expected interval,
  /// or of the previous one while none is expected yet).
  mutating func noteRhythm(_ interval: Int64) {
    let reference = intervals.isEmpty ? lastInterval : intervals.median
    let off = interval > parameters.longestIntervalSamples
      || (reference > 0 && abs(interval &- reference) &* 256 > parameters.rhythmToleranceQ8 &* reference)
    rhythm = ((rhythm << 1) | (off ? 1 : 0)) & 0b11111
    rhythmCount = min(5, rhythmCount + 1)
    lastInterval = interval
  }

  /// Beats count as good signal once two intervals in a row continue the rhythm; when three of the last five
  /// do not, the beats are likely motion or noise: poor signal (the beats are still reported; the IBI
  /// cleaner judges them). Clipped stays clipped.
  mutating func updateQualityFromRhythm() {
    guard quality != .clipped else { return }
    let offCount = (rhythm & 1) + (rhythm >> 1 & 1) + (rhythm >> 2 & 1) + (rhythm >> 3 & 1) + (rhythm >> 4 & 1)
    if quality == .good {
      if offCount >= 3 { setQuality(.poorSignal, at: position &- 1) }
    } else if rhythmCount >= 2 && rhythm & 0b11 == 0 {
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
    return ((origin &+ c.index &* m) << 16) &+ offsetQ16 &* m &- parameters.timeCorrectionQ16
  }

  // MARK: - Adaptation

  /// Beats are overdue: decay the references; after longer, declare lock lost and learn afresh.
  mutating func overdue(at index: Int64) {
    guard !rawBad else { return }
    if index > lostAt {
      restart(at: index, settle: false)
      setQuality(.poorSignal, at: position &- 1)
      return
    }
    if !amplitudes.isEmpty && decayQ15 > parameters.decayFloorQ15 {
      decayQ15 = max(parameters.decayFloorQ15, (decayQ15 &* parameters.decayStepQ15) >> 15)
      updateReferences()
    }
  }

  mutating func updateReferences() {
    amplitudeReference = (amplitudes.median &* decayQ15) >> 15
    slopeReference = (slopes.median &* decayQ15) >> 15
    hysteresis = max(parameters.hysteresisFloorQ8, (amplitudeReference &* parameters.hysteresisQ8) >> 8)
  }

  /// Recomputes when the references start to decay and when lock counts as lost, from the last beat (or the
  /// restart) and the expected interval.
  mutating func updateTimers() {
    let p = parameters
    let expected = intervals.isEmpty ? p.defaultIntervalSamples : intervals.median
    let since = hasLastBeat ? lastBeatIndex : settledAfter
    decayFrom = since &+ max(p.decayAfterSamples, expected &* 2)
    lostAt = since &+ max(p.lostAfterSamples, (expected &* 5) >> 1)
    if !hasLastBeat { decayFrom = min(decayFrom, lostAt) }
  }

  /// Forgets what was learnt (references, rhythm, pending candidate) and learns again from `index`, after
  /// the settling time if `settle`.
  mutating func restart(at index: Int64, settle: Bool) {
    amplitudes.removeAll()
    slopes.removeAll()
    intervals.removeAll()
    decayQ15 = 1 << 15
    amplitudeReference = 0
    slopeReference = 0
    hasLastBeat = false
    regular = false
    rhythm = 0
    rhythmCount = 0
    lastInterval = 0
    hasPending = false
    settledAfter = index &+ (settle ? parameters.settleSamples : 0)
    rangeMax = .min
    rangeMin = .max
    steepestSlope = 0
    hysteresis = parameters.hysteresisFloorQ8
    updateTimers()
  }
}
