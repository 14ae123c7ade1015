import Analysis
import EvaluationSet
import PulseDSP
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
  /// does not use: the true beats, the reported ones, and the recovered ones among them.
  static let runs: [(truth: [Double], reported: [Double], recovered: [Double])] = {
    var runs: [(truth: [Double], reported: [Double], recovered: [Double])] = []
    for rate in [50.0, 100, 200, 400] {
      for seed in 3...8 {
        let spec = EvalRecordSpec(condition: .respiration, rateHz: rate, seed: seed, durationSeconds: 120)
        guard let record = try? EvalSet.record(spec), let analysis = try? EvalAnalyzer.analysis(of: record) else {
          continue
        }
        let inside = { (t: Double) in t > 2 && t < 119 }
        runs.append(
          (
            record.visibleBeats.map(\.seconds).filter(inside),
            EvalAnalyzer.output(of: analysis).beatTimesSeconds.filter(inside),
            analysis.beats.filter(\.beat.recovered).map(\.seconds).filter(inside)
          ))
      }
    }
    return runs
  }()

  static func matches(_ t: Double, _ times: [Double]) -> Bool { times.contains { abs($0 - t) <= 0.15 } }

  @Test("Missed pulses are recovered, in time with the truth, and few recovered beats are false")
  func kneesRecovered() {
    var truths = 0, missed = 0, falseBeats = 0, recoveredTrue = 0, recoveredFalse = 0
    for run in Self.runs {
      truths += run.truth.count
      missed += run.truth.filter { !Self.matches($0, run.reported) }.count
      falseBeats += run.reported.filter { !Self.matches($0, run.truth) }.count
      recoveredTrue += run.recovered.filter { Self.matches($0, run.truth) }.count
      recoveredFalse += run.recovered.filter { !Self.matches($0, run.truth) }.count
    }
    #expect(truths > 3000, "only \(truths) true beats in the records")
    // Measured: 13 true and 2 false beats recovered, 114 missed and 3 false of 3307. Without the knees: 8 and 1,
    // 119 and 2. (93 of the misses are one record's, seed 6 at 100 Hz, whose wander is 2.5 times the pulse: the
    // detector follows the breathing there, and its windows are uncategorised.)
    #expect(recoveredTrue >= 12, "\(recoveredTrue) true beats recovered")
    #expect(recoveredFalse <= 2, "\(recoveredFalse) false beats recovered")
    #expect(missed <= 115, "\(missed) of \(truths) true beats missed")
    #expect(falseBeats <= 3, "\(falseBeats) false beats")
  }
}
