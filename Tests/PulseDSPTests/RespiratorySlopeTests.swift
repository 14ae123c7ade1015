import EvaluationSet
import Testing

/// A respiratory wander as large as the pulse leaves the first-order 0.5 Hz high-pass enough of itself that a pulse
/// on its upslope rises steeply, then goes on climbing with the baseline: its peak never falls by the hysteresis in
/// time, so it is no candidate. Its knee (`BeatDetectorTuning.kneeSlopeShift`) goes to search-back, which reports it
/// when the next beat comes about two intervals after the last. A wander larger than the pulse switches the high-pass
/// to a higher corner (`BeatDetector.watchBreath`), after which most such pulses are found as they come.
@Suite(
  "Pulses on a respiratory upslope are recovered at their knee",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct RespiratorySlopeTests {
  /// Respiration records (baseline wander and amplitude modulation), 50–400 Hz, 120 s, at seeds the evaluation set
  /// does not use.
  static let runs = HeldOutRun.runs(.respiration, rates: [50, 100, 200, 400], seeds: 3...8)

  @Test("Missed pulses are recovered, in time with the truth, and few recovered beats are false")
  func kneesRecovered() {
    let t = HeldOutTally(Self.runs)
    #expect(t.truths > 3000, "only \(t.truths) true beats in the records")
    // Measured: 7 true and no false beats recovered, 19 missed and none false of 3307. Before the high-pass followed a
    // deep breath: 13 and 2 recovered, 111 missed and 3 false (93 of the misses one record's, seed 6 at 100 Hz, whose
    // wander is 2.5 times the pulse: the detector followed the breathing there; now 17). Without the knees, before
    // that: 8 and 1, 119 and 2.
    #expect(t.recoveredTrue >= 6, "\(t.recoveredTrue) true beats recovered")
    #expect(t.recoveredFalse <= 1, "\(t.recoveredFalse) false beats recovered")
    #expect(t.missed <= 22, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 2, "\(t.falseBeats) false beats")
  }
}
