// Search-back (after Pan & Tompkins 1985): when a beat comes about two intervals after the last one, a beat
// between them was missed — a weak beat, or a premature one that the secondary-wave zone or the pulse template
// turned away. The best candidate rejected in that span, if it lies well inside it and looks enough like a
// pulse, is reported then, just before the beat that revealed it. A span of about three intervals (motion that
// hid two pulses) may give back two candidates, each as far from the other as from the beats. Per candidate,
// never per sample.
extension BeatDetector {
  /// The best two rejected candidates since the last beat, at least `earliestBeatShare` of an expected interval
  /// apart (two peaks closer than that are never two missed beats: the better stands for both).
  struct SearchBack: Sendable {
    var has = false
    var candidate = Candidate()
    /// amplitude ratio × slope ratio against the references, Q16.
    var scoreQ16: Int64 = 0
    var hasSecond = false
    var second = Candidate()
    var secondScoreQ16: Int64 = 0
    /// When two are recovered, the earlier, reported before `EventOutbox.recoveredBeat`.
    var earlierBeat: DetectedBeat?
  }

  /// A rejected candidate: kept if it is at least `earliestBeatShare` of an expected interval after the last
  /// beat, scores at least `searchBackScore`, is not that beat's recurring secondary wave (in AF a long interval is
  /// often just long, and that wave was its best rejected peak: near its learnt delay, or anywhere while it recurs if
  /// the candidate rises slower than the beats), and is one of the best two so far since that beat that lie that far
  /// apart.
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
    guard score >= p.searchBackScoreQ16, !isRecurringSecondary(c, since: since) else { return }
    // A pulse whose secondary wave recurs: away from the wave's learnt delay only a candidate with a ventricle's
    // stroke. The wave moves from span to span (in AF, with the interval), and it rises slowly.
    guard secondary.state != .recurring || hasSteepStroke(c) else { return }
    keepRejected(c, score: score, expected: expected)
  }

  /// Keeps `c` (its score `score`) among the best two rejected candidates that lie far enough apart to be two
  /// beats: one near a kept candidate replaces it if it scores higher; one near neither takes a free place or the
  /// lower one's.
  mutating func keepRejected(_ c: Candidate, score: Int64, expected: Int64) {
    let b = searchBack
    guard b.has else {
      searchBack.has = true
      searchBack.candidate = c
      searchBack.scoreQ16 = score
      return
    }
    let nearFirst = comesTooSoon(c.index &- b.candidate.index, expected: expected)
    let nearSecond = b.hasSecond && comesTooSoon(c.index &- b.second.index, expected: expected)
    if nearFirst && nearSecond {
      // Between the two: it stands for both only if it beats both.
      guard score > b.scoreQ16 && score > b.secondScoreQ16 else { return }
      searchBack.hasSecond = false
      searchBack.candidate = c
      searchBack.scoreQ16 = score
    } else if nearFirst || (!nearSecond && b.hasSecond && b.scoreQ16 <= b.secondScoreQ16) {
      guard score > b.scoreQ16 else { return }
      searchBack.candidate = c
      searchBack.scoreQ16 = score
    } else {
      guard !b.hasSecond || score > b.secondScoreQ16 else { return }
      searchBack.hasSecond = true
      searchBack.second = c
      searchBack.secondScoreQ16 = score
    }
  }

  /// The beat `c` is accepted: if it comes at least `searchBackLongShare` expected intervals after the last
  /// beat, the best rejected candidate between them that is at least `earliestBeatShare` of one before `c` is the
  /// missed beat; from one more interval on, both kept candidates are, if both lie that far before `c`. Forgets
  /// the candidates either way.
  mutating func recoverMissedBeats(before c: Candidate) {
    defer {
      searchBack.has = false
      searchBack.hasSecond = false
    }
    // Only in a quiet span (at most two extra peaks over eight beats) whose recent beats all had the pulse's shape:
    // in noise and motion a long interval is more often a lost pulse than a missed beat, and the best rejected peak
    // there is noise. The rhythm need not be steady: an irregular rhythm (AF) is where weak early beats are missed
    // most, and its poor-signal state comes from the rhythm alone.
    guard searchBack.has, rhythm.hasLastBeat, quality == .good || quality == .poorSignal, quietSpans else { return }
    let expected = rhythm.expected
    let p = parameters
    let interval = c.index &- rhythm.lastBeatIndex
    guard expected > 0, interval &* 256 >= p.searchBackLongQ8 &* expected else { return }
    let b = searchBack
    let firstFits = fitsBefore(c, b.candidate, expected: expected)
    let secondFits = b.hasSecond && fitsBefore(c, b.second, expected: expected)
    if firstFits && secondFits && interval &* 256 >= (p.searchBackLongQ8 &+ 256) &* expected {
      let (earlier, later) = b.candidate.index < b.second.index ? (b.candidate, b.second) : (b.second, b.candidate)
      searchBack.earlierBeat = recovered(earlier)
      outbox.recoveredBeat = recovered(later)
    } else if !b.hasSecond || b.scoreQ16 >= b.secondScoreQ16 {
      if firstFits { outbox.recoveredBeat = recovered(b.candidate) }
    } else if secondFits {
      outbox.recoveredBeat = recovered(b.second)
    }
  }

  /// Whether the rejected candidate `r` lies far enough before the beat `c` to be a beat of its own.
  @inline(__always)
  func fitsBefore(_ c: Candidate, _ r: Candidate, expected: Int64) -> Bool {
    let rest = c.index &- r.index
    return rest >= parameters.refractorySamples && !comesTooSoon(rest, expected: expected)
  }

  /// The recovered beat `r`, reported before the beat that revealed it. It changes nothing else: not the
  /// references (it was weaker than they ask), not the rhythm (a wrong recovery must not pull it towards twice
  /// the rate), so every other beat is found exactly as without search-back.
  mutating func recovered(_ r: Candidate) -> DetectedBeat {
    DetectedBeat(
      positionQ16: beatPositionQ16(r), reportedAt: position &- 1, amplitudeQ8: r.amplitude, upslopeQ8: r.slope,
      recovered: true)
  }
}
