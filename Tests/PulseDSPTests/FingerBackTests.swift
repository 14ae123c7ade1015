import Analysis
import EvaluationSet
import PulseDSP
import Testing

/// A finger put back onto a raw-intensity sensor brings the light back over about a second. Detection restarts as
/// soon as the light is back, on one sample of the climb; while the light goes on moving from it and no beat has been
/// found, the filters start again from each new half-second block (`BeatDetector.handleReturnBlock`). Left on the
/// climb's step, the band-passed signal lay on a slope that no pulse on it confirmed a peak from, and the first beats
/// were lost. A first peak that still rises with the settling is given away by its rise against its steepest upslope
/// (`BeatDetector.acceptSettlingBeat`); when no peak on a slope falls fast enough to be a candidate, learning measures
/// its range afresh from the slow peak (`Acquisition.forgetRange`).
@Suite(
  "After the finger is put back the pulse is found at once",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct FingerBackTests {
  @Test("The beats in the seconds after the light is back are found, and none is invented")
  func beatsAfterReturn() throws {
    var soon = 0, found = 0, falseBeats = 0, truths = 0
    for rate in [25.0, 50, 100, 200, 400] {
      for seed in [3, 4, 5, 6] {
        // Given records with the finger lifted as the evaluation set renders them (120 s), at seeds it does not use
        let spec = EvalRecordSpec(condition: .lifted, rateHz: rate, seed: seed, durationSeconds: 120)
        let record = try EvalSet.record(spec)
        let scored = { (t: Double) in t > 2 && t < 119 && !record.excludedSpans.contains { $0.contains(t) } }
        let truth = record.visibleBeats.map(\.seconds).filter(scored)
        // When the chain runs
        let beats = try EvalAnalyzer.analysis(of: record).beats.map(\.seconds).filter(scored)
        // Then the true beats scored in the 6 s after each lift ends (the set leaves the first 2 s out) are found
        for lift in record.liftSpans {
          for t in truth where t > lift.end && t < lift.end + 6 {
            soon += 1
            found += beats.contains { abs($0 - t) <= 0.15 } ? 1 : 0
          }
        }
        // And the beats reported are true ones
        falseBeats += beats.filter { b in !truth.contains { abs($0 - b) <= 0.15 } }.count
        truths += truth.count
      }
    }
    // Measured: 95 of 95 found, no false beat of 2218. Without the filters' second start on the climb: 93. Before that,
    // without the settling beat's rule 89, without learning's fresh range after a slow peak 92, without either 88;
    // never a false beat.
    #expect(soon >= 80, "only \(soon) beats in the seconds after a lift")
    #expect(found >= soon, "found \(found) of \(soon) beats after the finger was put back")
    #expect(falseBeats <= 2, "\(falseBeats) false beats of \(truths)")
  }
}
