import EvaluationSet
import Testing

/// A respiratory wander as large as the pulse leaves the first-order 0.5 Hz high-pass enough of itself that a pulse
/// on its upslope rises steeply, then goes on climbing with the baseline: its peak never falls by the hysteresis in
/// time, so it is no candidate. Its knee (`BeatDetectorTuning.kneeSlopeShift`) goes to search-back, which reports it
/// when the next beat comes about two intervals after the last.
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
    // Measured: 13 true and 2 false beats recovered, 111 missed and 3 false of 3307. 114 and 4 while the gate's
    // rescue by the template (`noSecondaryExpected`) left out a clearly irregular rhythm whose secondary wave is
    // unknown; 114 and 3 before it reached past a recurring secondary wave. Without the knees: 8 and 1, 119 and 2.
    // (93 of the misses are one record's, seed 6 at 100 Hz, whose wander is 2.5 times the pulse: the detector follows
    // the breathing there, and its windows are uncategorised.)
    #expect(t.recoveredTrue >= 12, "\(t.recoveredTrue) true beats recovered")
    #expect(t.recoveredFalse <= 2, "\(t.recoveredFalse) false beats recovered")
    #expect(t.missed <= 112, "\(t.missed) of \(t.truths) true beats missed")
    #expect(t.falseBeats <= 3, "\(t.falseBeats) false beats")
  }
}
