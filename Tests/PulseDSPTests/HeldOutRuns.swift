import Analysis
import EvaluationSet

/// One record of the evaluation set's generator at a seed the set does not use, analysed by the chain: its true
/// beats, the detector's, the ones the chain reports, the recovered ones, and those of them that search-back
/// recovered two at a time, all between 2 s and 1 s before the end.
struct HeldOutRun {
  var truth: [Double]
  var detected: [Double]
  var reported: [Double]
  var recovered: [Double]
  var recoveredInPairs: [Double]

  /// Records of `condition` (120 s unless told) at every rate and seed given.
  static func specs(
    _ condition: EvalCondition, rates: [Double], seeds: ClosedRange<Int>, durationSeconds: Double = 120
  ) -> [EvalRecordSpec] {
    rates.flatMap { rate in
      seeds.map { EvalRecordSpec(condition: condition, rateHz: rate, seed: $0, durationSeconds: durationSeconds) }
    }
  }

  /// `specs`' records analysed (a record that cannot be made is left out).
  static func runs(
    _ condition: EvalCondition, rates: [Double], seeds: ClosedRange<Int>, durationSeconds: Double = 120
  ) -> [HeldOutRun] {
    var runs: [HeldOutRun] = []
    for spec in specs(condition, rates: rates, seeds: seeds, durationSeconds: durationSeconds) {
      guard let record = try? EvalSet.record(spec), let analysis = try? EvalAnalyzer.analysis(of: record) else {
        continue
      }
      let inside = { (t: Double) in t > 2 && t < durationSeconds - 1 }
      let recovered = analysis.beats.filter(\.beat.recovered)
      let paired = recovered.filter { beat in
        recovered.contains { $0.seconds != beat.seconds && $0.beat.reportedAt == beat.beat.reportedAt }
      }
      runs.append(
        HeldOutRun(
          truth: record.visibleBeats.map(\.seconds).filter(inside),
          detected: analysis.beats.map(\.seconds).filter(inside),
          reported: EvalAnalyzer.output(of: analysis).beatTimesSeconds.filter(inside),
          recovered: recovered.map(\.seconds).filter(inside), recoveredInPairs: paired.map(\.seconds).filter(inside)))
    }
    return runs
  }

  /// Whether a beat lies within the score's tolerance (±150 ms) of `t`.
  static func matches(_ t: Double, _ times: [Double]) -> Bool {
    times.contains { abs($0 - t) <= EvalScore.toleranceSeconds }
  }
}

/// What held-out runs add up to against their truth (±150 ms): the reported beats' misses and false ones, and the
/// recovered beats (all, and those recovered two at a time) that are true or false.
struct HeldOutTally {
  var truths = 0, missed = 0, falseBeats = 0
  var recoveredTrue = 0, recoveredFalse = 0
  var pairedTrue = 0, pairedFalse = 0

  init(_ runs: [HeldOutRun]) {
    for run in runs {
      let isTrue = { (t: Double) in HeldOutRun.matches(t, run.truth) }
      truths += run.truth.count
      missed += run.truth.filter { !HeldOutRun.matches($0, run.reported) }.count
      falseBeats += run.reported.filter { !isTrue($0) }.count
      recoveredTrue += run.recovered.filter(isTrue).count
      recoveredFalse += run.recovered.filter { !isTrue($0) }.count
      pairedTrue += run.recoveredInPairs.filter(isTrue).count
      pairedFalse += run.recoveredInPairs.filter { !isTrue($0) }.count
    }
  }
}
