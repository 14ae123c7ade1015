import EvaluationSet
import Testing

@testable import PulseDSP

/// Rules for the beats an irregular rhythm and motion hide. In AF the signal is "poor" by its rhythm alone while the
/// pulse stays clean, and a short-coupled beat with a ventricle's steep stroke is taken there as in good signal, from
/// 0.35 of an interval on (`BeatDetector.cleanPulse`, `steepEarlyBeat`); a full-size early beat the secondary-wave
/// zones turn away while the secondary wave is unknown goes on to the gate and the template (`zoneCandidate`), and
/// while that template is empty a clearly irregular rhythm's strong beats teach it (`teachEmptyTemplate`). Where
/// motion hides two pulses in a row, search-back gives back both when the span holds about three intervals
/// (`BeatDetector.recoverMissedBeats`). A short-coupled beat that splits an interval in two is reported, not left out
/// as an extra detection, when it rose with its neighbours' stroke in good signal (`AnalysisRecord.markExtraBeat`).
@Suite(
  "Beats hidden by an irregular rhythm and by motion",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct IrregularRhythmTests {
  @Test("Short-coupled AF beats are found while the rhythm alone makes the signal poor, and no false beat comes")
  func shortCoupledBeatsInPoorRhythm() {
    // Given AF-like records, 25–400 Hz, 120 s, at seeds the evaluation set does not use
    let t = HeldOutTally(HeldOutRun.runs(.af, rates: [25, 50, 100, 200, 400], seeds: 3...8))
    // Then
    #expect(t.truths > 5000, "only \(t.truths) true beats in the records")
    // Measured: 43 missed and 11 false of 5500. 46 and 11 while the gate's rescue by the template (`strongPulse`)
    // left out a clearly irregular rhythm whose secondary wave is unknown (`noSecondaryExpected`); 50 and 11 while
    // it asked for a pulse without any secondary wave, not one whose recurring secondary wave is elsewhere; 50 and
    // 13 while search-back could give back that wave (`isRecurringSecondary`); 51 and 13 while the template learnt
    // only from beats on the rhythm (`teachEmptyTemplate`). With every short-coupled beat that splits an interval
    // left out when it is weaker than both neighbours (as noise is): 66 and 13. With the steep early beat from half
    // an interval (not 0.35) in an irregular rhythm too: 80 and 13; without the zones' rule as well: 85 and 13; in
    // good signal only, too: 95 and 13.
    // 45 and 11 since a poor signal for the rhythm alone keeps the cleaner's segment (`BeatChain`): two short AF
    // intervals in a row, now judged with the ones before them, made an extra-beat pair in good signal whose middle
    // beat rose slower than its neighbours. (On the 120 s held-out records, seeds 1-24: 239 AF beats missed, 245
    // before.)
    // 45 and 3 since a candidate kept for search-back must rise steeply while the secondary wave recurs: the wave
    // moves with the interval in AF and was given back in long intervals (`BeatDetector.noteRejected`).
    #expect(t.missed <= 45, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 4, "\(t.falseBeats) false beats")
  }

  @Test("A short-coupled AF beat early in the interval it splits is reported down to a third of its neighbours' size")
  func earlyShortCoupledBeatsReported() {
    // Given AF-like records, 25–400 Hz, 300 s, at seeds neither the set nor the other tests use. A short-coupled beat
    // had less time to fill; the one that comes early in the interval it splits (the interval after it the longer)
    // the least. The chain kept such a beat only at half the smaller neighbour (`AnalysisRecord.markExtraBeat`).
    let t = HeldOutTally(HeldOutRun.runs(.af, rates: [25, 50, 100, 200, 400], seeds: 17...28, durationSeconds: 300))
    // Then (measured: 200 missed and 37 false of 28 026; at half the neighbour whatever the order: 203 and 37. On the
    // held-out sets of 300 records × 300 s: 2 to 8 more AF beats per set, and 0 to 3 false ones among the noisy and
    // motion records)
    #expect(t.truths > 20000, "only \(t.truths) true beats in the records")
    #expect(t.missed <= 200, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 37, "\(t.falseBeats) false beats")
  }

  @Test("A poor signal is the rhythm's alone in an irregular rhythm on a clean pulse, not where noise rides on it")
  func poorSignalByItsCause() throws {
    func rhythmOnlyShare(_ condition: EvalCondition, noiseFree: Bool) throws -> (Double, Int) {
      var poor = 0, rhythmOnly = 0
      // Given 120 s records, at seeds the evaluation set does not use
      for spec in HeldOutRun.specs(condition, rates: [50, 100, 200], seeds: 3...5) {
        let record = try EvalSet.record(spec, noiseFree: noiseFree)
        // When the chain runs, each poor signal says whether the beat before it made the rhythm irregular
        let changes = try EvalAnalyzer.analysis(of: record).qualityChanges.filter { $0.quality == .poorSignal }
        poor += changes.count
        rhythmOnly += changes.count { $0.rhythmOnly }
      }
      return (Double(rhythmOnly) / Double(max(poor, 1)), poor)
    }
    // Then in an AF-like rhythm on a clean pulse every poor signal is the rhythm's (measured: all 39)
    let af = try rhythmOnlyShare(.af, noiseFree: true)
    #expect(af.1 >= 20 && af.0 >= 0.9, "share, count: \(af)")
    // And where real sensor noise and white noise bury a weak pulse, few are (measured: none of 31)
    let noisy = try rhythmOnlyShare(.noisy, noiseFree: false)
    #expect(noisy.1 >= 10 && noisy.0 <= 0.2, "share, count: \(noisy)")
  }

  @Test("A span of about three intervals gives back two beats, mostly true ones")
  func twoBeatsRecovered() {
    // Given motion records (real motion artefact in bursts), 25–400 Hz, 120 s, at seeds the set does not use
    let t = HeldOutTally(HeldOutRun.runs(.motion, rates: [25, 50, 100, 200, 400], seeds: 3...8))
    // Then
    #expect(t.truths > 4000, "only \(t.truths) true beats in the records")
    // Measured: 4 true and 2 false beats recovered two at a time, 59 missed and 66 false of 4317. Before the gate's
    // rescue by the template away from a recurring secondary wave (`noSecondaryExpected`), which takes two of those
    // beats as they come: 6 and 2 in pairs, 61 missed and 68 false (67 while every weaker beat that splits an
    // interval was left out: one steep motion bump in good signal is kept). When pairs came
    // (before the irregular rhythm's earlier steep beats): 63 and 66, and with one beat at most per span none in
    // pairs, 66 missed and 65 false. (The false ones in pairs are motion peaks 0.2-0.3 s from a hidden pulse: the
    // count is right, the place is not.)
    // Since a late candidate with a fair likeness is a beat (`BeatDetectorTuning.templateLateCorrelation`): 2 true and
    // 2 false in pairs, 58 missed and 67 false. The later beat of two pairs is taken as it comes, and search-back gives
    // back the one before it alone.
    #expect(t.pairedTrue >= 2, "\(t.pairedTrue) true beats recovered in pairs")
    #expect(t.pairedFalse <= 2, "\(t.pairedFalse) false beats recovered in pairs")
    #expect(t.missed <= 58, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 67, "\(t.falseBeats) false beats")
  }
}

/// How soon an irregular rhythm gives the detector its pulse template.
@Suite(
  "The pulse template in an irregular rhythm",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct IrregularRhythmTemplateTests {
  /// Seconds until the template is ready, for each AF record given (120 s when it never is).
  static func secondsToTemplate(rates: [Double], seeds: ClosedRange<Int>) throws -> [Double] {
    var times: [Double] = []
    for rate in rates {
      for seed in seeds {
        let spec = EvalRecordSpec(condition: .af, rateHz: rate, seed: seed, durationSeconds: 120)
        let record = try EvalSet.record(spec)
        var detector = try BeatDetector(sampleRateHz: rate, polarity: .inverted)
        var ready: Double = 120
        for (i, sample) in record.samples.enumerated() {
          detector.process(sample) { _ in }
          if detector.energy.template.isReady {
            ready = Double(i) / rate
            break
          }
        }
        times.append(ready)
      }
    }
    return times.sorted()
  }

  @Test("Strong beats of a clearly irregular rhythm teach the empty template: ready within 10 s in 9 records of 10")
  func templateReadyInAF() throws {
    // Given AF-like records, 25–400 Hz, 120 s, at seeds the evaluation set does not use
    let times = try Self.secondsToTemplate(rates: [25, 50, 100, 200, 400], seeds: 3...8)
    // Then it is ready within ten seconds in nine records of ten. Measured: median 7.5 s, 90th percentile 10.0 s;
    // 7.5 s and 10.9 s while only beats on the rhythm taught it.
    let median = times[times.count / 2], slowest = times[times.count * 9 / 10]
    #expect(median <= 8, "template ready after \(median) s in half the records")
    #expect(slowest <= 10.5, "template ready after \(slowest) s in the slowest tenth")
  }
}
