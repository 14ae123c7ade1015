import Platform
import StressModel
import TestSupport
import Testing

/// The cleaner on synthetic hearts whose swings are known: a respiratory swing and seeded jitter around a mean, with
/// one artefact or one real extreme put in.
extension IBICleanerTests {
  /// `count` intervals (ms) around `meanMs`: a swing of ±`swing` (a share) over `period` beats, and seeded jitter of
  /// ±`jitter` / 2.
  static func swinging(
    _ meanMs: Double, swing: Double, period: Double, jitter: Double, seed: UInt64, count: Int = 240
  ) -> [Double] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { (k: Int) -> Double in
      meanMs * (1 + swing * sin(2 * Double.pi * Double(k) / period) + jitter * (random.unit() - 0.5))
    }
  }

  @Test("In a very variable heart a beat 25 % early that resets the rhythm makes a V: both intervals set aside")
  func earlyBeatInAVariableHeart() {
    // Respiratory swings of ±15 % over 4.5 beats (successive changes up to 20 %: D at its cap) and ±3 % of seeded
    // jitter; beat 121 comes 25 % early and the rhythm goes on from it.
    let sinus = Self.swinging(850, swing: 0.15, period: 4.5, jitter: 0.06, seed: 5)
    var intervals = sinus
    intervals[120] *= 0.75
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[120].verdict == .prematureBeat && judged[121].verdict == .prematureBeat)
    // The swings alone, however deep their troughs, are clean.
    let alone = Self.clean(Self.beats(sinus))
    let rejected = alone.indices.filter { !alone[$0].isClean }
    #expect(rejected.isEmpty, "rejected: \(rejected)")
  }

  @Test("A false beat late in a long interval: its two parts are an extra beat, the steady interval after them kept")
  func falseBeatLateInALongInterval() {
    // Swings of ±12 % over 5 beats and ±3 % of seeded jitter (d near its cap). Interval 120 is 25 % long and a noise
    // peak 0.9 of a mean interval into it splits it: 0.9 and 0.35, neither both short nor summing to one.
    let sinus = Self.swinging(900, swing: 0.12, period: 5, jitter: 0.06, seed: 3)
    var intervals = sinus
    intervals[120] = 1.25 * 900
    intervals.replaceSubrange(120...120, with: [0.9 * 900, 0.35 * 900])
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[120].verdict == .extraBeat && judged[121].verdict == .extraBeat)
    #expect(judged[119].isClean && judged[122].isClean)
    // A false beat early in an interval and the true one after it missed (a fragment, then a long interval that is
    // not steady): the fragment and that interval are the pattern, and the interval before them stays.
    var misplaced = sinus
    misplaced.replaceSubrange(160...161, with: [0.45 * sinus[160], 0.55 * sinus[160] + sinus[161]])
    let judgedMisplaced = Self.clean(Self.beats(misplaced))
    #expect(judgedMisplaced[159].isClean)
    #expect(!judgedMisplaced[160].isClean && !judgedMisplaced[161].isClean)
    #expect(judgedMisplaced[160].verdict != .extraBeat || judgedMisplaced[159].verdict != .extraBeat)
  }

  @Test("A false beat late in a long interval of a slowing heart: the two parts are an extra beat, not a misplaced one")
  func falseBeatLateAfterTheHeartSlowed() {
    // A steady 43 bpm heart, ±1.5 % of seeded jitter (d at its 0.12 floor). From interval 118 it slows over four beats
    // to 1.39 of its mean; a noise peak then splits the next interval (1.39 again) into 1.06 and 0.33, and the heart
    // stays near 1.17 for three beats (slow_25hz_s304 at seed 304, 203-210 s). Against a reference raised by the
    // slowing, the long interval before the split and the split's first part look like a misplaced beat (long, then
    // short, summing to two) unless the fragment after them is seen to belong with that first part.
    var intervals = Self.swinging(1400, swing: 0, period: 1, jitter: 0.03, seed: 23)
    intervals.replaceSubrange(118...126, with: [1434, 1601, 1776, 1947, 1486, 455, 1676, 1621, 1646])
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[121].isClean, "the long interval before the split: \(judged[121].verdict)")
    #expect(judged[122].verdict == .extraBeat && judged[123].verdict == .extraBeat)
    #expect(judged[124].isClean && judged[120].isClean)
  }

  @Test("A lone long interval after one lengthening is the heart slowing and stays; after a slightly early beat, a pause")
  func loneLongIntervalAfterASlowingOne() {
    // A steady heart (±1.5 % of seeded jitter: d at its 0.12 floor, far off from 1.36). At 120 the heart slows: 5 %
    // long, then 42 % long, then back. At 160 the same 42 % follows a beat 4 % early, too little for the pair tests.
    var intervals = Self.swinging(800, swing: 0, period: 1, jitter: 0.03, seed: 7)
    intervals[119] = 1.05 * 800
    intervals[120] = 1.42 * 800
    intervals[159] = 0.96 * 800
    intervals[160] = 1.42 * 800
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[119].isClean && judged[120].isClean && judged[121].isClean)
    // The early beat's interval is a V's floor and the pause a spike: both set aside, the interval after them kept.
    #expect(judged[159].verdict == .prematureBeat && judged[160].verdict == .prematureBeat && judged[161].isClean)
    // Past 1.6 a long interval is more often a missed beat between two short ones than the heart slowing.
    intervals[120] = 1.65 * 800
    #expect(Self.clean(Self.beats(intervals))[120].verdict == .irregular)
  }

  @Test("A beat early on an interval already long: its interval no shorter than the heart's swings, its pause a spike")
  func earlyBeatOnALongInterval() {
    // Swings of ±5 % over 6 beats and ±3 % of seeded jitter (D at its 0.25 floor, d 0.12-0.15). At 121 the rhythm has
    // lengthened to 1.2 and 1.15 of the mean; a beat comes 20 % early on the first: 0.96, then its pause 1.39 (the pair
    // makes up the two long intervals). The early interval is within a breath's swing, so only the V and the spike
    // show it.
    let sinus = Self.swinging(800, swing: 0.05, period: 6, jitter: 0.06, seed: 13)
    var intervals = sinus
    intervals[121] = 0.8 * 1.2 * 800
    intervals[122] = 0.2 * 1.2 * 800 + 1.15 * 800
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[121].verdict == .prematureBeat && judged[122].verdict == .prematureBeat)
    #expect(judged[120].isClean && judged[123].isClean)
    // A "pause" as long as a missed beat (motion_25hz_s804 at seed 804, 255 s: a beat lost in a burst after a real
    // interval) is the missed-beat test's: the interval before it stays.
    var missed = intervals
    missed[122] = 2.1 * 800
    let judgedMissed = Self.clean(Self.beats(missed))
    #expect(judgedMissed[121].isClean && judgedMissed[122].verdict == .missedBeat)
    // A heart swinging ±7 % over 5 beats has D above 0.28 (its default before ten clean intervals is 0.25): a pause
    // 0.28 above a slight trough is within its swings, mid-record and at the start, before D is learned.
    let swinging = Self.swinging(800, swing: 0.07, period: 5, jitter: 0.04, seed: 13)
    func pause(at k: Int) -> [Double] {
      var with = swinging
      let trough = 0.97 * min(swinging[k - 1], swinging[k + 2])
      with[k] = trough
      with[k + 1] = trough + 0.29 * 800
      with[k + 2] = max(with[k + 2], trough + 10)
      return with
    }
    #expect(Self.clean(Self.beats(pause(at: 121)))[121].isClean)
    #expect(Self.clean(Self.beats(pause(at: 6)))[6].isClean)
    // In a heart whose successive changes reach D's cap (±25 % of jitter: AF-like), a spike proves nothing.
    var irregular = Self.swinging(800, swing: 0, period: 1, jitter: 0.5, seed: 17)
    irregular[119] = 0.95 * 800
    irregular[120] = 0.92 * 800
    irregular[121] = 1.45 * 800
    irregular[122] = 0.97 * 800
    #expect(Self.clean(Self.beats(irregular))[120].isClean)
  }

  @Test("A 190 bpm heart swinging 25 % keeps its shortest intervals: 237 ms is plausible")
  func fastHeartsShortestIntervals() {
    // 316 ms (190 bpm) with a slow swing of ±25 % over 20 beats (the real RR series a fast record is scaled from keeps
    // its swings) and ±1 % of seeded jitter: down to about 235 ms.
    let intervals = Self.swinging(316, swing: 0.25, period: 20, jitter: 0.02, seed: 11, count: 600)
    #expect(intervals.min()! < 240)
    let judged = Self.clean(Self.beats(intervals))
    #expect(!judged.contains { $0.verdict == .implausible })
    // Below 250 ms nearly all are clean; the reference's 300 ms floor for intervals not yet judged leaves a deep
    // trough's own few to the older ones, and one pair there is not.
    let shortest = judged.filter { $0.milliseconds < 250 }
    let kept = shortest.filter(\.isClean).count
    #expect(shortest.count >= 20 && Double(kept) >= 0.9 * Double(shortest.count), "\(kept) of \(shortest.count) kept")
  }
}
