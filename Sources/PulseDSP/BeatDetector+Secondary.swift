// Secondary (dicrotic, reflected) waves: where they are expected after a beat, and what the detector learns
// about them from the peaks it rejects between beats. Integer only; called from the candidate rules.
extension BeatDetector {
  /// The secondary-wave zone and the late (height) zone after a beat, working samples: fixed times, or shares
  /// of the expected interval when longer.
  @inline(__always)
  func secondaryZones(expected: Int64) -> (zone: Int64, heightZone: Int64) {
    let p = parameters
    let share = (expected &* p.zoneShareQ8) >> 8
    return (max(p.zoneSamples, share), max(p.heightZoneSamples, share))
  }

  /// Whether `c`, `since` working samples after the last beat, is that beat's own secondary wave: the pulse's
  /// secondary wave recurs (`SecondaryWaveWatch.State.recurring`), `c` comes near its delay and is smaller than the
  /// beat.
  @inline(__always)
  func isRecurringSecondary(_ c: Candidate, since: Int64) -> Bool {
    secondary.state == .recurring && nearSecondaryDelay(since) && c.amplitude < references.lastAmplitude
  }

  /// Whether no secondary wave is expected `since` working samples after the last beat: the pulse has none
  /// (`.absent`), or it recurs at a delay this is not near while the spans are quiet (in noise the watch's
  /// "recurring" may be noise's, and a noise peak away from it matches the template as often as a short-coupled
  /// beat). While the watch still knows nothing (`.unknown`) because the rhythm is clearly irregular (three of the
  /// last five intervals off, as in AF, whose short-coupled beats keep it from learning) and the spans are quiet, a
  /// secondary wave is not expected either: there the caller's template match decides.
  @inline(__always)
  func noSecondaryExpected(since: Int64) -> Bool {
    switch secondary.state {
    case .absent: true
    case .recurring: quietSpans && !nearSecondaryDelay(since)
    case .unknown: quietSpans && rhythm.isClearlyIrregular
    }
  }

  /// Whether `since` working samples after a beat is within the recurring secondary wave's tolerance of its delay.
  @inline(__always)
  func nearSecondaryDelay(_ since: Int64) -> Bool {
    let delay = secondary.delays.median
    let tolerance = max(parameters.secondaryToleranceSamples, (delay &* parameters.secondaryToleranceShareQ8) >> 8)
    return abs(since &- delay) <= tolerance
  }

  /// A rejected candidate after a beat: the first one past the merge window (refractory rejections count: a
  /// fast pulse's secondary wave comes within the refractory period) and inside the height zone is that beat's
  /// secondary peak.
  mutating func noteSecondary(_ c: Candidate) {
    noteRejected(c)
    guard rhythm.hasLastBeat, c.amplitude >= parameters.minimumAmplitudeQ8 else { return }
    if secondary.pendingDelay != nil {
      secondary.pendingExtra = min(15, secondary.pendingExtra + 1)
      return
    }
    let since = c.index &- rhythm.lastBeatIndex
    let (_, heightZone) = secondaryZones(expected: rhythm.intervals.isEmpty ? 0 : rhythm.intervals.median)
    if since > parameters.mergeSamples && since < heightZone { secondary.pendingDelay = since }
  }

  /// A beat closes the last one's span: was there a secondary peak, and what does that say about the pulse?
  /// Only spans that continue the rhythm count, and only while the signal is good: in noise or motion the
  /// state falls back to unknown (the fixed zones), so that noise accepted as beats never teaches the
  /// detector that the pulse has no secondary wave.
  mutating func closeSecondarySpan(interval: Int64) {
    defer {
      secondary.pendingDelay = nil
      secondary.pendingExtra = 0
    }
    guard rhythm.hasLastBeat else { return }
    // The higher corner a deep breath engages (`watchBreath`) gives the pulse a rebound after its secondary wave: one
    // more peak per span is the pulse's there.
    let extra = breathEngaged ? max(0, secondary.pendingExtra - 1) : secondary.pendingExtra
    secondary.extraNibbles = (secondary.extraNibbles << 4) | UInt32(extra)
    let expected = rhythm.intervals.isEmpty ? 0 : rhythm.intervals.median
    guard expected > 0, abs(interval &- expected) &* 256 <= parameters.rhythmToleranceQ8 &* expected else { return }
    let had = secondary.pendingDelay != nil
    secondary.bits = ((secondary.bits << 1) | (had ? 1 : 0)) & 0xFF
    secondary.count = min(8, secondary.count + 1)
    if let delay = secondary.pendingDelay { secondary.delays.push(delay) }
    guard secondary.count >= BeatDetectorTuning.secondaryMinimumBeats else { return }
    let ones = secondary.ones
    if ones <= BeatDetectorTuning.secondaryAbsentCount {
      secondary.state = .absent
    } else if ones >= BeatDetectorTuning.secondaryRecurringCount && secondary.delays.count == RecentMedian.capacity {
      let delay = secondary.delays.median
      let tolerance = max(parameters.secondaryToleranceSamples, (delay &* parameters.secondaryToleranceShareQ8) >> 8)
      secondary.state = secondary.delays.count(within: tolerance, of: delay) >= 4 ? .recurring : .unknown
    } else {
      secondary.state = .unknown
    }
  }
}
