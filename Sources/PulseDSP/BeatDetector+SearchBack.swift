// Search-back (after Pan & Tompkins 1985): when a beat comes about two intervals after the last one, a beat
// between them was missed — a weak beat, or a premature one that the secondary-wave zone or the pulse template
// turned away. The best candidate rejected in that span, if it lies well inside it and looks enough like a
// pulse, is reported then, just before the beat that revealed it. Per candidate, never per sample.
extension BeatDetector {
  /// The best rejected candidate since the last beat.
  struct SearchBack: Sendable {
    var has = false
    var candidate = Candidate()
    /// amplitude ratio × slope ratio against the references, Q16.
    var scoreQ16: Int64 = 0
  }

  /// A rejected candidate: kept if it is at least `earliestBeatShare` of an expected interval after the last
  /// beat, scores at least `searchBackScore`, and is the best so far since that beat.
  mutating func noteRejected(_ c: Candidate) {
    // Cheap tests first (this runs for every rejected peak, secondary waves included), and no division: the
    // recovery would not be made in a poor or unsteady signal anyway.
    // Most rejected peaks are secondary waves, earlier than half an interval: that test first.
    let p = parameters
    let expected = rhythm.expected
    let since = c.index &- rhythm.lastBeatIndex
    guard !comesTooSoon(since, expected: expected), expected > 0, since >= p.refractorySamples,
      quality == .good || quality == .poorSignal, rhythm.hasLastBeat, !references.isEmpty
    else { return }
    // Against the references as they stand (the medians of the last five beats, decayed while beats are overdue).
    let amplitude = references.amplitude, slope = references.slope
    guard c.amplitude &* 256 >= p.featureFloorQ8 &* amplitude, c.slope &* 256 >= p.featureFloorQ8 &* slope,
      amplitude > 0, slope > 0
    else { return }
    // (amplitude ratio × slope ratio) in Q16, in Double: the product of two Q8 ratios of 40-bit values would
    // overflow as integers. Once per rejected peak.
    let product: Double = Double(c.amplitude) * Double(c.slope)
    let reference: Double = Double(amplitude) * Double(slope)
    let score = Int64(min(4_294_967_296.0, product * 65_536 / reference))
    guard score >= p.searchBackScoreQ16, !searchBack.has || score > searchBack.scoreQ16 else { return }
    searchBack.has = true
    searchBack.candidate = c
    searchBack.scoreQ16 = score
  }

  /// The beat `c` is accepted: if it comes at least `searchBackLongShare` expected intervals after the last
  /// beat and the best rejected candidate between them is at least `earliestBeatShare` of one before `c`,
  /// that candidate is the missed beat. Forgets the candidate either way.
  mutating func recoverMissedBeat(before c: Candidate) -> Candidate? {
    defer { searchBack.has = false }
    // Only in a quiet span (at most two extra peaks over eight beats) whose recent beats all had the pulse's shape:
    // in noise and motion a long interval is more often a lost pulse than a missed beat, and the best rejected peak
    // there is noise. The rhythm need not be steady: an irregular rhythm (AF) is where weak early beats are missed
    // most, and its poor-signal state comes from the rhythm alone.
    guard searchBack.has, rhythm.hasLastBeat, quality == .good || quality == .poorSignal,
      secondary.extraTotal <= BeatDetectorTuning.quietExtraPeaks, rhythm.misshapenBits == 0
    else { return nil }
    let expected = rhythm.expected
    let p = parameters
    let interval = c.index &- rhythm.lastBeatIndex
    guard expected > 0, interval &* 256 >= p.searchBackLongQ8 &* expected else { return nil }
    let r = searchBack.candidate
    let rest = c.index &- r.index
    guard rest >= p.refractorySamples, !comesTooSoon(rest, expected: expected) else { return nil }
    return r
  }

  /// Reports the recovered beat `r` (before the beat that revealed it). It changes nothing else: not the
  /// references (it was weaker than they ask), not the rhythm (a wrong recovery must not pull it towards twice
  /// the rate), so every other beat is found exactly as without search-back.
  mutating func acceptRecovered(_ r: Candidate) {
    outbox.recoveredBeat = DetectedBeat(
      positionQ16: beatPositionQ16(r), reportedAt: position &- 1, amplitudeQ8: r.amplitude, upslopeQ8: r.slope,
      recovered: true)
  }
}
