import Analysis
import EvaluationSet
import PulseDSP
import Testing

/// At low perfusion a noise peak on the pulse's foot, 150–250 ms ahead of the systolic peak, can pass as a beat; the
/// pulse then falls in the refractory period. Of two peaks that close, the systolic one stands higher above the
/// filtered baseline, so a peak twice as high replaces the beat (`BeatDetector.standsAboveLastBeat`).
@Suite(
  "A noise peak on the pulse's foot gives way to the pulse",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct FootNoiseReplacementTests {
  @Test("On noisy low-perfusion records, a false beat seldom keeps out the true one just after it")
  func pulseReplacesFootNoise() throws {
    var blocked = 0, falseBeats = 0, missed = 0, truths = 0
    for rate in [50.0, 100, 200, 400] {
      for seed in [3, 4, 5, 6, 7, 8] {
        // Given noisy records (real sensor noise and white noise at 0.1–0.5 % AC), 120 s, seeds the set does not use
        let spec = EvalRecordSpec(condition: .noisy, rateHz: rate, seed: seed, durationSeconds: 120)
        let record = try EvalSet.record(spec)
        let truth = record.visibleBeats.map(\.seconds).filter { $0 > 2 && $0 < 119 }
        // When the chain runs, every beat it reports (replacements applied, recovered beats included)
        let beats = try EvalAnalyzer.analysis(of: record).beats.map(\.seconds).filter { $0 > 2 && $0 < 119 }
        func reported(_ t: Double) -> Bool { beats.contains { abs($0 - t) <= 0.15 } }
        func isTrue(_ b: Double) -> Bool { truth.contains { abs($0 - b) <= 0.15 } }
        let falseOnes = beats.filter { !isTrue($0) }
        let missedOnes = truth.filter { !reported($0) }
        // Then few true beats are missed right after a false beat (within 0.3 s: the refractory period and the
        // merge window)
        blocked += missedOnes.filter { t in falseOnes.contains { t - $0 > 0 && t - $0 <= 0.3 } }.count
        falseBeats += falseOnes.count
        missed += missedOnes.count
        truths += truth.count
      }
    }
    // Measured: 10 blocked; 113 false and 39 missed beats of 3582, F1 0.979. Without the rule: 23 blocked, F1 0.978.
    #expect(truths > 3000, "only \(truths) true beats in the records")
    #expect(blocked <= 14, "\(blocked) true beats missed within 0.3 s of a false beat before them")
    let truePositives = truths - missed
    let f1 = 2 * Double(truePositives) / Double(2 * truePositives + falseBeats + missed)
    #expect(f1 >= 0.975, "F1 \(f1): \(falseBeats) false and \(missed) missed beats of \(truths)")
  }
}
