import EvaluationSet
import Testing

/// The analysis chain on the evaluation set's seeded subset (every condition at 25, 100 and 400 Hz, 120 s each;
/// docs/evaluation-set.md): per-condition figures that a regression in the detector or the IBI cleaner would
/// break. The floors are the figures measured when they were written (docs/detector.md), less a small margin;
/// where an issue-12 target is met the floor is the target itself.
@Suite(
  "Detector and cleaner on the evaluation set (seeded subset)",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct EvaluationSetAccuracyTests {
  /// Every subset record scored once per process.
  static let scores: [EvalScore] = EvalSet.subsetSpecs().compactMap { try? EvalSet.score($0, analyzer: .stressmon) }

  static func summary(_ condition: EvalCondition) -> EvalSummary {
    EvalSummary(scores.filter { $0.condition == condition })
  }

  @Test("Every subset record was made and scored")
  func complete() {
    #expect(Self.scores.count == EvalSet.subsetSpecs().count)
  }

  @Test(
    "F1 per condition (±150 ms): ≥ 0.99 on clean, fast, slow, premature beats, respiration and lifted fingers",
    arguments: [
      EvalCondition.clean, .fast, .slow, .prematureCompensatory, .prematureNoncompensatory, .respiration, .lifted,
    ])
  func f1Targets(condition: EvalCondition) {
    let s = Self.summary(condition)
    #expect(s.f1 >= 0.99, "\(condition.rawValue): F1 \(s.f1) (FP \(s.falsePositives), FN \(s.falseNegatives))")
  }

  @Test("F1 ≥ 0.97 on motion and noisy records; the AF-like ones stay at least where they were measured")
  func f1Floors() {
    // Targets: motion 0.97 (subset 0.990), noisy 0.97 (subset 0.990; the whole set's noisy records 0.974). AF has
    // no target of its own (0.962 before search-back, 0.970 with it, 0.980 with short-coupled beats let past the
    // energy gate by their shape).
    for (condition, floor) in [(EvalCondition.motion, 0.97), (.noisy, 0.97), (.af, 0.975)] {
      let s = Self.summary(condition)
      #expect(s.f1 >= floor, "\(condition.rawValue): F1 \(s.f1) (FP \(s.falsePositives), FN \(s.falseNegatives))")
    }
  }

  @Test("Beat timing stays precise: within-record SD against the exact peaks, clean pulses at 50 Hz and up")
  func timingPrecision() throws {
    let precise: Set<EvalCondition> = [.clean, .fast, .slow, .respiration]
    let sds = Self.scores.filter { precise.contains($0.condition) && $0.rateHz >= 50 }.compactMap(\.timingSDMs).sorted()
    #expect(sds.count == 8)
    let median = (sds[3] + sds[4]) / 2
    // Measured: 0.7-4.9 ms, median 2.1 ms (the bias, -5 to -17 ms, follows the pulse shape and cancels in intervals).
    #expect(median <= 2.5 && (sds.last ?? 99) <= 5.5, "timing SD per record: \(sds)")
  }

  @Test("HRV windows at 50 Hz and up: median |SDNN error| ≤ 3 ms, |RMSSD error| ≤ 5 ms; 90th percentiles bounded")
  func windowErrors() {
    let s = EvalSummary(Self.scores.filter { $0.rateHz >= 50 })
    #expect((s.sdnnMedianError ?? 99) <= 3, "median |SDNN error| \(s.sdnnMedianError ?? -1)")
    #expect((s.rmssdMedianError ?? 99) <= 5, "median |RMSSD error| \(s.rmssdMedianError ?? -1)")
    // Targets 8 / 12 ms, met since AF-like windows are not scored (measured 2.6 / 5.4 ms on this subset).
    #expect((s.sdnnP90Error ?? 99) <= 8, "90th percentile |SDNN error| \(s.sdnnP90Error ?? -1)")
    #expect((s.rmssdP90Error ?? 99) <= 12, "90th percentile |RMSSD error| \(s.rmssdP90Error ?? -1)")
  }

  @Test("What the device shows: noisy, AF-like and lifted stretches uncategorised, clean sinus stretches shown")
  func shownWindows() {
    let all = EvalSummary(Self.scores)
    // Measured 0.762 / 1.0 / 0.992 (the target for clean stretches, 0.95, is met in sinus rhythm). Noisy windows
    // uncategorised: 0.667 before a pulse buried in noise made a window poor signal (`noisyShapeMatch`).
    #expect((all.noisyUncategorised ?? 0) >= 0.74, "noisy windows uncategorised \(all.noisyUncategorised ?? -1)")
    #expect((all.liftedUncategorised ?? 0) >= 0.95, "lifted windows uncategorised \(all.liftedUncategorised ?? -1)")
    let sinus = EvalSummary(Self.scores.filter { $0.condition != .af })
    #expect((sinus.cleanShown ?? 0) >= 0.95, "clean windows shown in sinus rhythm \(sinus.cleanShown ?? -1)")
    // An AF-like rhythm is real but gives no stress level (irregular_rhythm; docs/detector.md). Measured 0.
    let af = Self.scores.filter { $0.condition == .af }.flatMap(\.windows)
    let afShown = Double(af.filter(\.shown).count) / Double(max(af.count, 1))
    #expect(!af.isEmpty && afShown <= 0.1, "AF-like windows shown \(afShown)")
    // Target 0.98: measured 0.988 (0.982 without the noise rule; 0.964 when this was first written: the subset's
    // 120 s records give few windows, and one artefact stays in up to six of them).
    #expect((all.sdnnWithin10 ?? 0) >= 0.98, "shown windows with SDNN within 10 % \(all.sdnnWithin10 ?? -1)")
  }
}
