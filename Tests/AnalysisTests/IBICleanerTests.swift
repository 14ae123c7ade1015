import Foundation
import Platform
import StressModel
import TestSupport
import Testing

@Suite("IBI cleaning by artefact signature")
struct IBICleanerTests {
  static let series = ["rr/pyhrv_nni_short.csv", "rr/pyhrv_nni_long.csv", "rr/systole_rr.csv"]

  /// Beat times (s) of an NN series (ms).
  static func beats(_ intervalsMs: [Double]) -> [Double] {
    var t = 0.0
    return [0] + intervalsMs.map { t += $0 / 1000; return t }
  }

  /// `nn` with a premature beat ending interval `k`: `early` of that interval early, with a compensatory pause, and
  /// the pause `longerPause` of interval k + 1 longer than that.
  static func premature(
    _ nn: [Double], endingInterval k: Int, early: Double = 0.3, longerPause: Double = 0
  ) -> [Double] {
    var intervals = nn
    intervals[k] -= early * nn[k]
    intervals[k + 1] += early * nn[k] + longerPause * nn[k + 1]
    return intervals
  }

  /// The cleaner's verdicts on `beats` (seconds), with a segment break before the beats in `breakAt`, the sizes of the
  /// beats in `sizes` (one per beat; nil: not known) and the shapes (r²) of the beats in `shapes` (the others' not
  /// known). The stream ends at a contact found lost at `contactLostAt`, else plainly.
  static func clean(
    _ beats: [Double], breakAt: Set<Int> = [], sizes: [Double]? = nil, shapes: [Int: Double] = [:],
    contactLostAt: Double? = nil
  ) -> [InterBeatInterval] {
    var cleaner = IBICleaner()
    var out: [InterBeatInterval] = []
    for (i, beat) in beats.enumerated() {
      if breakAt.contains(i) { cleaner.breakSegment { out.append($0) } }
      cleaner.addBeat(atSeconds: beat, size: sizes?[i], shape: shapes[i]) { out.append($0) }
    }
    if let contactLostAt {
      cleaner.breakSegment(contactLostAtSeconds: contactLostAt) { out.append($0) }
    } else {
      cleaner.finish { out.append($0) }
    }
    return out
  }

  @Test("Real NN series keep their variability: SDNN within 1 ms and RMSSD within 2 ms of the whole series")
  func realSeriesKeepTheirVariability() throws {
    for file in Self.series {
      let nn = try SharedData.column(file)
      let judged = Self.clean(Self.beats(nn))
      #expect(judged.count == nn.count)
      #expect(zip(judged, nn).allSatisfy { abs($0.milliseconds - $1) < 1e-6 })
      let truth = try #require(HRVMetrics(intervalsMs: nn))
      let kept = try #require(HRVMetrics(segmentsMs: InterBeatInterval.cleanRuns(judged)))
      #expect(abs(kept.sdnnMs - truth.sdnnMs) <= 1, "\(file): SDNN \(kept.sdnnMs) vs \(truth.sdnnMs)")
      #expect(abs(kept.rmssdMs - truth.rmssdMs) <= 2, "\(file): RMSSD \(kept.rmssdMs) vs \(truth.rmssdMs)")
      // The longest real intervals are variability, not artefacts: the five longest all stay.
      let longest = nn.sorted().suffix(5)
      for ms in longest {
        #expect(judged.contains { abs($0.milliseconds - ms) < 1e-6 && $0.isClean }, "\(file): \(ms) ms dropped")
      }
      let rejected = judged.filter { !$0.isClean }.count
      #expect(Double(rejected) <= 0.01 * Double(nn.count), "\(file): \(rejected) of \(nn.count) rejected")
    }
  }

  @Test("Injected artefacts are excluded and their neighbours kept", arguments: RRArtefacts.Kind.allCases)
  func injectedArtefacts(kind: RRArtefacts.Kind) throws {
    var artefacts = 0, caught = 0, normal = 0, lost = 0
    for file in Self.series {
      let nn = try SharedData.column(file)
      for seed in 1...3 as ClosedRange<UInt64> {
        let case_ = RRArtefacts(nn: nn, kinds: [kind], spacing: 30, seed: seed)
        let judged = Self.clean(case_.beats)
        for (interval, bad) in zip(judged, case_.isArtefact) {
          if bad {
            artefacts += 1
            if !interval.isClean { caught += 1 }
          } else {
            normal += 1
            if !interval.isClean { lost += 1 }
          }
        }
      }
    }
    // Recall of artefact intervals and the share of normal intervals lost (the second interval after a reset
    // premature beat has a normal length; keeping it costs nothing, so both counts allow for it). Reset premature
    // beats: 0.89 of their intervals caught, 0.83 before the V test (a short interval between two longer ones).
    let recall = Double(caught) / Double(artefacts)
    let loss = Double(lost) / Double(normal)
    #expect(recall >= (kind == .prematureReset ? 0.85 : 0.9), "\(kind): \(caught) of \(artefacts) artefact intervals caught")
    #expect(loss <= 0.01, "\(kind): \(lost) of \(normal) normal intervals lost")
  }

  @Test("With every kind of artefact injected, windowed SDNN stays within 1 ms (median) and 5 ms (90 %) of the truth")
  func windowedErrorWithArtefacts() throws {
    var errors: [Double] = []
    for file in Self.series {
      let nn = try SharedData.column(file)
      for seed in 1...3 as ClosedRange<UInt64> {
        let case_ = RRArtefacts(nn: nn, spacing: 40, seed: seed)
        let judged = Self.clean(case_.beats)
        var end = 60.0
        while end <= case_.beats.last! {
          let inside = judged.filter { $0.endSeconds >= end - 60 && $0.endSeconds < end }
          let truth = case_.truth.filter { $0.end >= end - 60 && $0.end < end }.map(\.ms)
          if let ours = HRVMetrics(segmentsMs: InterBeatInterval.cleanRuns(inside)), let exact = HRVMetrics(intervalsMs: truth) {
            errors.append(abs(ours.sdnnMs - exact.sdnnMs))
          }
          end += 10
        }
      }
    }
    let sorted = errors.sorted()
    let median = sorted[sorted.count / 2]
    let p90 = sorted[sorted.count * 9 / 10]
    #expect(errors.count > 500)
    #expect(median <= 1 && p90 <= 5, "window |SDNN error|: median \(median) ms, 90th percentile \(p90) ms")
  }

  @Test("Each signature gets its verdict: a missed beat, an extra detection, premature beats of both kinds")
  func verdictsNameTheArtefact() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // A missed beat at 40, an extra detection splitting interval 80, a premature beat 30 % early at 120 with a
    // compensatory pause, and one at 160 that resets the rhythm.
    var intervals = Self.premature(nn, endingInterval: 120)
    intervals[160] *= 0.7
    intervals.replaceSubrange(80...80, with: [0.4 * nn[80], 0.6 * nn[80]])
    intervals.replaceSubrange(40...41, with: [nn[40] + nn[41]])
    let judged = Self.clean(Self.beats(intervals))
    // Indices after the two replacements: 40 merged (−1 from there), 80 split (+1 from 81 on): net 0 after 81.
    #expect(judged[40].verdict == .missedBeat)
    #expect(judged[79].verdict == .extraBeat && judged[80].verdict == .extraBeat)
    #expect(judged[120].verdict == .prematureBeat && judged[121].verdict == .prematureBeat)
    #expect(judged[160].verdict == .prematureBeat && judged[161].verdict == .prematureBeat)
    let expectedBad: Set<Int> = [40, 79, 80, 120, 121, 160, 161]
    let bad = Set(judged.indices.filter { !judged[$0].isClean })
    #expect(bad.subtracting(expectedBad).isEmpty, "also rejected: \(bad.subtracting(expectedBad).sorted())")
  }

  @Test("A premature beat whose pause is followed by a long interval is still a premature beat")
  func prematureBeforeALongInterval() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // Beat 120 comes 30 % early with a compensatory pause, and the interval after the pause is 28 % long (a slow
    // breath's peak): the pause is not followed by a normal interval.
    var intervals = Self.premature(nn, endingInterval: 120)
    intervals[122] = 1.28 * nn[122]
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[120].verdict == .prematureBeat && judged[121].verdict == .prematureBeat)
    #expect(judged[119].isClean && judged[122].isClean && judged[123].isClean)
  }

  @Test("A weak beat makes a premature pair of a short and a long interval whose sum misses two by up to 1.5 τ")
  func weakPrematureBeatWithALongPause() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // Beat 121 comes 30 % early, and the pause after it is longer than compensatory: the pair sums to about 2.37
    // reference intervals (the neighbours' sum is 1.99), more than τ = 0.3 off.
    let times = Self.beats(Self.premature(nn, endingInterval: 120, longerPause: 0.17))
    // Sizes: steady within ±10 %, the premature beat (121, which ends interval 120) at 0.6.
    let sizes = times.indices.map { $0 == 121 ? 0.6 : 1 + 0.1 * Double(($0 * 7) % 5 - 2) / 2 }
    let judged = Self.clean(times, sizes: sizes)
    #expect(judged[120].verdict == .prematureBeat && judged[121].verdict == .prematureBeat)
    #expect(judged[119].isClean && judged[122].isClean)
    // By timing alone (no sizes, or a full-sized beat) the sum is too far off for the pattern; what sets the pair
    // aside is the V the early beat makes below the interval before it and the pause.
    let plain = Self.clean(times)
    #expect(plain[120].verdict == .prematureBeat && plain[121].verdict == .prematureBeat)
    // Where the interval before is as short (no V: the early interval is no trough, and the pause no spike after one),
    // only the weak beat's size makes the pair.
    var noDip = Self.premature(nn, endingInterval: 120, longerPause: 0.17)
    noDip[119] = noDip[120]
    let noDipTimes = Self.beats(noDip)
    let judgedNoDip = Self.clean(noDipTimes, sizes: sizes)
    #expect(judgedNoDip[120].verdict == .prematureBeat && judgedNoDip[121].verdict == .prematureBeat)
    let plainNoDip = Self.clean(noDipTimes)
    #expect(!(plainNoDip[120].verdict == .prematureBeat && plainNoDip[121].verdict == .prematureBeat))
  }

  @Test("A beat found early and the next one missed: the short interval and the long one after it are both set aside")
  func earlyBeatThenAMissedOne() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // Beat 121 is found 40 % early (motion moved the peak) and beat 122 is missed: 0.6 of an interval, then about
    // 2.4 (the missed-beat test alone catches only the second).
    var intervals = nn
    intervals.replaceSubrange(120...121, with: [0.6 * nn[120], 0.4 * nn[120] + nn[121] + nn[122]])
    intervals.remove(at: 122)
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[120].verdict == .misplacedBeat && judged[121].verdict == .misplacedBeat)
    #expect(judged[119].isClean && judged[122].isClean)
  }

  @Test("A beat found late and the next one missed: the long and short interval are a pair, the missed beat its own")
  func lateBeatThenAMissedOne() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // Beat 121 is found 30 % of an interval late (motion moved the peak) and beat 123 is missed: about 1.3, 0.7 and 2
    // intervals. The pair's neighbours' sum is not the clean one before and the next one: that one spans two.
    var intervals = nn
    let late = 0.3 * nn[120]
    intervals[120] += late
    intervals[121] -= late
    intervals[122] += intervals.remove(at: 123)
    let judged = Self.clean(Self.beats(intervals))
    #expect(judged[120].verdict == .misplacedBeat && judged[121].verdict == .misplacedBeat)
    #expect(judged[122].verdict == .missedBeat)
    #expect(judged[119].isClean && judged[123].isClean)
  }

  /// `times` through a cleaner that is told, after beat `at`, that the detector found the rhythm irregular there
  /// (`noteIrregularRhythm`), or that broke its segment there.
  static func cleanNoting(_ times: [Double], irregularAt at: Int, breaking: Bool = false) -> [InterBeatInterval] {
    var cleaner = IBICleaner()
    var out: [InterBeatInterval] = []
    for (i, t) in times.enumerated() {
      cleaner.addBeat(atSeconds: t) { out.append($0) }
      if i == at {
        if breaking { cleaner.breakSegment { out.append($0) } } else { cleaner.noteIrregularRhythm() }
      }
    }
    cleaner.finish { out.append($0) }
    return out
  }

  @Test("A rhythm called irregular goes on: an early beat after it still makes a pair, a lone interval is irregular")
  func irregularRhythmKeepsTheSegment() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    // Beat 121 comes 30 % early with a compensatory pause; the detector called the rhythm irregular at beat 120.
    let times = Self.beats(Self.premature(nn, endingInterval: 120))
    let noted = Self.cleanNoting(times, irregularAt: 120)
    // Every interval is there, in one segment, and the early beat's two are the pair they are
    #expect(noted.count == times.count - 1 && Set(noted.map(\.segment)).count == 1)
    #expect(noted[120].verdict == .prematureBeat && noted[121].verdict == .prematureBeat)
    #expect(noted.indices.allSatisfy { (120...121).contains($0) || noted[$0].isClean })
    // A break there would drop the early beat's short interval and leave the pause to be judged on its own (on real
    // pulses, where the cleaner's threshold is wider, it was often kept).
    let broken = Self.cleanNoting(times, irregularAt: 120, breaking: true)
    #expect(!broken.contains { $0.endSeconds == times[121] })
    #expect(!broken.contains { $0.verdict == .prematureBeat })
    // Without an early beat, the interval after the beat called irregular is set aside, nothing else.
    let plain = Self.cleanNoting(Self.beats(nn), irregularAt: 60)
    #expect(plain[60].verdict == .irregular)
    #expect(plain.indices.allSatisfy { $0 == 60 || plain[$0].isClean })
  }

  @Test("Verdicts come at most four beats late, in order; a segment break judges the waiting ones")
  func boundedDelay() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let times = Self.beats(nn)
    var cleaner = IBICleaner()
    var emitted = 0
    for (i, beat) in times.enumerated() {
      cleaner.addBeat(atSeconds: beat) { _ in emitted += 1 }
      // Beat i closes interval i − 1; at most `lookAhead` intervals wait.
      #expect(i - emitted <= IBICleaner.lookAhead, "beat \(i): \(emitted) judged")
      if let waiting = cleaner.earliestUndecidedEndSeconds { #expect(waiting <= beat) }
    }
    cleaner.breakSegment { _ in emitted += 1 }
    #expect(emitted == nn.count && cleaner.earliestUndecidedEndSeconds == nil)
  }

  @Test("Intervals outside 220-2500 ms are implausible, and nothing is stitched across a segment break")
  func implausibleAndSegments() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    var times = Self.beats(nn)
    times.insert(times[50] + 0.2, at: 51)  // a double detection 200 ms after a beat
    let judged = Self.clean(times, breakAt: [120])
    // The 200 ms part and the rest of that interval sum to one interval: an extra beat, both parts excluded.
    #expect(judged[50].verdict == .extraBeat && judged[51].verdict == .extraBeat)
    // The break drops the interval between beats 119 and 120: one interval fewer, and segments differ.
    #expect(judged.count == times.count - 2)
    #expect(!judged.contains { $0.startSeconds == times[119] && $0.endSeconds == times[120] })
    #expect(Set(judged.map(\.segment)).count == 2)
    let runs = InterBeatInterval.cleanRuns(judged)
    #expect(runs.count >= 3)  // split at the double detection and at the break
    // A 200 ms interval (beat 31 found 650 ms early): after the interval before it, the two sum to about one and
    // are an extra detection. As the first of a segment it has nothing to pair with and is implausible (the break
    // before beat 30 drops interval 29, so it is judged[29] there).
    var lone = Self.beats(nn)
    lone.insert(lone[30] + 0.2, at: 31)
    lone.remove(at: 32)
    let paired = Self.clean(lone)
    #expect(paired[29].verdict == .extraBeat && paired[30].verdict == .extraBeat)
    #expect(Self.clean(lone, breakAt: [30])[29].verdict == .implausible)
  }

  @Test("A lost contact sets aside the intervals that end within a second before it; the earlier ones are judged")
  func contactLostSetsAsideTheEdge() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let times = Array(Self.beats(nn).prefix(60))
    // The finger leaves 0.3 s after beat 59: the light's fall could be beat 59 itself, or the one before at
    // short intervals.
    let lost = times[59] + 0.3
    let judged = Self.clean(times, contactLostAt: lost)
    #expect(judged.count == 59)
    let setAside = judged.filter { $0.verdict == .contactLost }
    #expect(!setAside.isEmpty && setAside.allSatisfy { $0.endSeconds >= lost - IBICleaner.contactEdgeSeconds })
    let before = judged.filter { $0.endSeconds < lost - IBICleaner.contactEdgeSeconds }
    #expect(before.allSatisfy { $0.verdict != .contactLost })
    #expect(judged.filter { $0.verdict == .clean }.count >= 55)
    // A plain break (a gap, a restart) judges them all.
    let all = Self.clean(times)
    #expect(!all.contains { $0.verdict == .contactLost })
  }

  @Test("An outsized beat just before a lost contact is the light's fall: the interval before it is judged, not motion")
  func lightsFallIsNoMovementOnset() {
    // A steady heart at 1 s (±1.5 % of seeded jitter), beats of about one size; beat 60 is 20 times it, and the finger
    // is found gone 0.2 s later (lifted_100hz_s403 at seed 403, 160 s: the interval before was a real 1.34 s one).
    let times = Self.beats(Self.swinging(1000, swing: 0, period: 1, jitter: 0.03, seed: 29, count: 60))
    let sizes = times.indices.map { $0 == 60 ? 20.0 : 1 + 0.05 * Double($0 % 3) }
    let lifted = Self.clean(times, sizes: sizes, contactLostAt: times[60] + 0.2)
    // The fall's own interval is set aside; the one before it, ending 1.2 s before the contact was found lost, is clean.
    #expect(lifted[59].verdict == .outsizedBeat)
    #expect(lifted[58].isClean, "\(lifted[58].verdict)")
    // Where the pulse goes on, the same beat is a movement's largest swing, which began before it.
    // (A movement: the pulse goes on.)
    let goesOn = (1...5).map { times[60] + Double($0) }
    let moved = Self.clean(times + goesOn, sizes: sizes + goesOn.map { _ in 1 })
    #expect(moved[58].verdict == .outsizedBeat && moved[59].verdict == .outsizedBeat)
  }

  @Test(
    "A beat over three times the recent beats' median size and twice their largest is motion: its intervals and the next are set aside, over four times the median the one before too, nothing else")
  func outsizedBeatIsMotion() throws {
    let nn = try SharedData.column("rr/systole_rr.csv")
    let times = Self.beats(nn)
    // Sizes swing with breathing (0.6 to 1.6, a period of 4.3 beats) and from beat to beat (±15 %, seeded):
    // never outsized. Beat 100 is a movement 3.5 times the median size of the eight before it (and over twice the
    // largest of them), beat 150 one 6 times. Beat 200 is a deep breath's: 3.5 times the median, but under twice the
    // largest, which beat 196 began to swell to 2.2 times the median.
    var random = SplitMix64(seed: 5)
    var sizes = times.indices.map { i in
      let unit = Double(random.next() >> 11) / Double(1 << 53)
      return (1.1 + 0.5 * sin(2 * Double.pi * Double(i) / 4.3)) * (0.85 + 0.3 * unit)
    }
    func medianBefore(_ i: Int) -> Double {
      let recent = sizes[(i - 8)..<i].sorted()
      return (recent[3] + recent[4]) / 2
    }
    sizes[100] = max(3.5 * medianBefore(100), 2.1 * (sizes[92..<100].max() ?? 0))
    sizes[150] = 6 * medianBefore(150)
    sizes[196] = 2.2 * medianBefore(196)
    sizes[200] = 3.5 * medianBefore(200)
    #expect(sizes[200] < 2 * sizes[196] && sizes[150] > 2 * (sizes[142..<150].max() ?? 0))
    let judged = Self.clean(times, sizes: sizes)
    // Each one's two intervals and the one after them (the movement goes on past its largest swing); past
    // `movementOnsetRatio` the one before them as well (the movement began before its largest swing).
    let motion = Set(99...101).union(148...151)
    #expect(motion.allSatisfy { judged[$0].verdict == .outsizedBeat })
    #expect(!judged.indices.contains { !motion.contains($0) && judged[$0].verdict == .outsizedBeat })
    // The same beats without sizes: judged as before, by timing alone.
    let plain = Self.clean(times)
    #expect(!plain.contains { $0.verdict == .outsizedBeat })
    #expect(judged.count == plain.count)
    #expect(judged.indices.allSatisfy { motion.contains($0) || judged[$0].verdict == plain[$0].verdict })
  }
}
