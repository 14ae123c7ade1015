import EvaluationSet
import Testing

/// At low perfusion a noise peak, often on the pulse's foot 150–250 ms ahead of the systolic peak, can pass as a
/// beat. The pulse then falls in the refractory period, or just past it where the template turns it away as a beat
/// off the rhythm. Of two peaks that close the systolic one stands higher above the filtered baseline, so a peak
/// twice as high replaces the beat: inside the refractory period always (`BeatDetector.standsAboveLastBeat`), up to
/// half an expected interval in poor signal (`BeatDetector.replacesNoiseBeat`). In poor signal a peak 1.2 times as
/// high that lands on the rhythm replaces a beat that came off it, early (`BeatDetector.standsAboveOnRhythm`).
@Suite(
  "A noise peak ahead of the pulse gives way to the pulse",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct FootNoiseReplacementTests {
  /// Noisy records (real sensor noise and white noise at 0.1–0.5 % AC), 50–400 Hz, 120 s, at seeds the evaluation
  /// set does not use.
  static let runs = HeldOutRun.runs(.noisy, rates: [50, 100, 200, 400], seeds: 3...8)

  @Test("A false beat seldom keeps out the true one just after it")
  func pulseReplacesFootNoise() {
    var blocked = 0
    var truths = 0
    for run in Self.runs {
      // Given the detector's beats, when a true beat is missed
      let falseOnes = run.detected.filter { !HeldOutRun.matches($0, run.truth) }
      let missed = run.truth.filter { !HeldOutRun.matches($0, run.detected) }
      // Then it seldom lies within 0.3 s (the refractory period and the merge window) after a false beat
      blocked += missed.filter { t in falseOnes.contains { t - $0 > 0 && t - $0 <= 0.3 } }.count
      truths += run.truth.count
    }
    // Measured: 10. Without the rules: 23. Since a late pulse with a fair likeness is a beat
    // (`BeatDetectorTuning.templateLateCorrelation`): 6.
    #expect(truths > 3000, "only \(truths) true beats in the records")
    #expect(blocked <= 14, "\(blocked) true beats missed within 0.3 s of a false beat before them")
  }

  @Test("The chain reports few false and few missed beats on them")
  func reportedBeats() {
    let t = HeldOutTally(Self.runs)
    // Measured: 22 false and 34 missed of 3582, F1 0.9922. Without the relaxed score's peak above the filtered zero
    // (`judge`) 25 and 35. When the replacement rules came: 25 and 36; without the rule past the refractory period
    // 35 and 42 (0.9893); without either rule 48 and 47 (0.9868). Since a late pulse with a fair likeness is a beat
    // (`BeatDetectorTuning.templateLateCorrelation`): 14 and 25 (0.9945).
    #expect(t.falseBeats <= 23, "\(t.falseBeats) false beats of \(t.truths)")
    #expect(t.missed <= 37, "\(t.missed) missed beats of \(t.truths)")
    let found = t.truths - t.missed
    let f1 = 2 * Double(found) / Double(2 * found + t.falseBeats + t.missed)
    #expect(f1 >= 0.990, "F1 \(f1)")
  }

  @Test("A detector locked on noise ahead of a weak pulse comes back to the pulse")
  func lockOnNoiseAheadOfThePulse() {
    // Noisy records at seeds 701–712, 50–400 Hz, 120 s (the rule's round measured on their 300 s twins). At the
    // lowest pulse-to-noise ratio the detector took a noise peak 0.2–0.4 s ahead of each pulse for the beat, beat
    // after beat, and turned the pulse away as an early second beat.
    let runs = HeldOutRun.runs(.noisy, rates: [50, 100, 200, 400], seeds: 701...712)
    let locked = HeldOutRun.runs(.noisy, rates: [400], seeds: 702...702)
    let t = HeldOutTally(runs)
    let l = HeldOutTally(locked)
    // Measured: 70 true beats found on the locked record, 65 since a late pulse with a fair likeness is a beat
    // (`BeatDetectorTuning.templateLateCorrelation`). Without `standsAboveOnRhythm`: 51.
    #expect(l.truths - l.missed >= 65, "\(l.truths - l.missed) of \(l.truths) true beats found on the locked record")
    // Measured: 146 false and 177 missed, 144 and 156 since the late pulse rule. Without `standsAboveOnRhythm` (before
    // that rule): 164 and 201.
    #expect(t.truths > 6000, "only \(t.truths) true beats in the records")
    #expect(t.falseBeats <= 155, "\(t.falseBeats) false beats of \(t.truths)")
    #expect(t.missed <= 189, "\(t.missed) missed beats of \(t.truths)")
  }
}
