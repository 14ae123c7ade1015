import Analysis
import EvaluationSet
import PulseDSP
import Testing

/// A short-coupled beat (AF, a premature beat) had less time to fill: it is weaker than the beat before it, and the
/// energy gate, which weighs a peak against the last 667 ms, stands it below that beat. When the pulse has no
/// secondary wave and the candidate has the pulse's shape, it is a beat all the same (`BeatDetector.strongPulse`),
/// and so is an early candidate too weak for the score (`MergeWindow.needsShape`).
@Suite(
  "Short-coupled beats are found as they come",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct ShortCoupledBeatTests {
  @Test("On AF-like pulse trains without noise, short-coupled beats are found in real time and no false beat is")
  func foundInRealTime() throws {
    var short = 0, found = 0, falseBeats = 0
    for rate in [50.0, 100, 200, 400] {
      // Given the evaluation set's AF-like rhythm, rendered without noise, drift or wander (120 s)
      let spec = EvalRecordSpec(condition: .af, rateHz: rate, seed: 1, durationSeconds: 120)
      let record = try EvalSet.record(spec, noiseFree: true)
      let truth = record.visibleBeats.map(\.seconds)
      let sorted = zip(truth.dropFirst(), truth).map { $0 - $1 }.sorted()
      let median = sorted[sorted.count / 2]
      // When the chain runs, the beats reported in real time (not recovered later by search-back) are kept
      let beats = try EvalAnalyzer.analysis(of: record).beats.filter { !$0.beat.recovered }.map(\.seconds)
      func detected(_ t: Double) -> Bool { beats.contains { abs($0 - t) <= 0.15 } }
      // Then the true beats that came under 0.75 of the median interval after the one before are nearly all there
      for (previous, t) in zip(truth, truth.dropFirst()) where t > 2 && t < 119 && t - previous < 0.75 * median {
        short += 1
        found += detected(t) ? 1 : 0
      }
      // And every reported beat is a true one
      falseBeats += beats.filter { b in b > 2 && b < 119 && !truth.contains { abs($0 - b) <= 0.15 } }.count
    }
    #expect(short >= 40, "only \(short) short-coupled beats in the records")
    #expect(Double(found) >= 0.95 * Double(short), "found \(found) of \(short) short-coupled beats in real time")
    #expect(falseBeats == 0, "\(falseBeats) false beats")
  }

  @Test("Under sensor noise, weak short-coupled beats are found and noise is not taken for them")
  func weakEarlyBeats() throws {
    var short = 0, found = 0, falseBeats = 0, truths = 0
    for rate in [25.0, 50, 100, 200, 400] {
      for seed in [3, 4, 5, 6] {
        // Given AF-like and premature-beat records as the evaluation set renders them (noise, drift, 120 s), at seeds
        // the set does not use
        for condition in [EvalCondition.af, .prematureCompensatory] {
          let spec = EvalRecordSpec(condition: condition, rateHz: rate, seed: seed, durationSeconds: 120)
          let record = try EvalSet.record(spec)
          let truth = record.visibleBeats.map(\.seconds)
          let sorted = zip(truth.dropFirst(), truth).map { $0 - $1 }.sorted()
          let median = sorted[sorted.count / 2]
          // When the chain runs
          let beats = try EvalAnalyzer.analysis(of: record).beats.map(\.seconds)
          func detected(_ t: Double) -> Bool { beats.contains { abs($0 - t) <= 0.15 } }
          // Then the true beats under 0.75 of the median interval after the one before are found
          for (previous, t) in zip(truth, truth.dropFirst()) where t > 2 && t < 119 && t - previous < 0.75 * median {
            short += 1
            found += detected(t) ? 1 : 0
          }
          // And next to no reported beat is a false one
          falseBeats += beats.filter { b in b > 2 && b < 119 && !truth.contains { abs($0 - b) <= 0.15 } }.count
          truths += truth.count
        }
      }
    }
    // Measured: 441 of 481 found (91.7 %), 12 false of 6698 true beats. Without the steep early beats
    // (`steepEarlyBeat`): 426 (88.6 %), 12 false; without the weak early beats taken on the pulse's shape too: 421.
    #expect(short >= 400, "only \(short) short-coupled beats in the records")
    #expect(Double(found) >= 0.905 * Double(short), "found \(found) of \(short) short-coupled beats")
    #expect(falseBeats <= 16, "\(falseBeats) false beats of \(truths)")
  }

  @Test("Premature beats in a regular rhythm whose secondary wave is still unknown are not left in the zones")
  func prematureBeatsPastTheZones() {
    // Given premature-beat records of both kinds (20-35 % early; a compensatory pause or none), 25-400 Hz, 120 s, at
    // seeds the evaluation set does not use
    let runs =
      HeldOutRun.runs(.prematureCompensatory, rates: [25, 50, 100, 200, 400], seeds: 3...8)
      + HeldOutRun.runs(.prematureNoncompensatory, rates: [25, 50, 100, 200, 400], seeds: 3...8)
    let t = HeldOutTally(runs)
    // Then
    #expect(t.truths > 8000, "only \(t.truths) true beats in the records")
    // Measured: 4 missed and 4 false of 8747. 5 and 4 while the zones' rule (`zoneCandidate`) asked for an irregular
    // rhythm: premature_noncompensatory at 200 Hz, seed 8, lost its beat 0.57 of an interval early (amplitude 0.51 and
    // slope 0.65 of the references), turned away as lower than half the last beat.
    #expect(t.missed <= 4, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 4, "\(t.falseBeats) false beats")
  }
}
