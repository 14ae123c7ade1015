import EvaluationSet
import StressModel
import Testing

/// The scoring: a perfect analyzer scores perfectly, known faults cost what they should, and the stressmon
/// adapter lines up with the truth's time base.
@Suite(
  "Evaluation set scoring",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct EvalScoreTests {
  static let spec = EvalRecordSpec(condition: .prematureCompensatory, rateHz: 100, seed: 1, durationSeconds: 150)

  /// An analyzer that reports the truth (optionally altered), with 60 s windows every 10 s, all shown.
  static func oracle(_ alter: @escaping @Sendable ([Double]) -> [Double] = { $0 }) -> EvalAnalyzer {
    EvalAnalyzer(name: "oracle") { record in
      let nn = EvalScore.truthNN(record)
      let windows = stride(from: 60.0, through: record.durationSeconds, by: 10).map { end in
        let metrics = HRVMetrics(segmentsMs: [nn.filter { $0.end >= end - 60 && $0.end < end }.map(\.ms)])
        return AnalyzerWindow(
          startSeconds: end - 60, endSeconds: end, shown: true, sdnnMs: metrics?.sdnnMs, rmssdMs: nil)
      }
      return AnalyzerOutput(
        beatTimesSeconds: alter(record.visibleBeats.map(\.seconds)), windows: windows, sdnnMs: nil, rmssdMs: nil)
    }
  }

  @Test("The truth scored against itself: F1 1, no timing error, window SDNN exact")
  func perfectAnalyzer() throws {
    let score = try EvalSet.score(Self.spec, analyzer: Self.oracle())
    #expect(score.f1 == 1)
    #expect(score.falsePositives == 0 && score.falseNegatives == 0)
    #expect(abs(score.timingBiasMs ?? 1) < 1e-9 && abs(score.timingSDMs ?? 1) < 1e-9)
    let summary = EvalSummary([score])
    // The oracle's windows use every NN interval (one run), the truth only adjacent ones for RMSSD; SDNN agrees.
    #expect(summary.sdnnMedianError == 0 && summary.sdnnP90Error == 0)
    #expect(summary.sdnnWithin10 == 1)
    #expect(summary.cleanShown == 1)
    #expect(summary.pairSDNNMedianError == 0)
    // Every true pair outside the excluded spans was detected.
    let record = try EvalSet.cachedRecord(Self.spec)
    let excluded = { (t: Double) in record.excludedSpans.contains { $0.contains(t) } }
    let scorable = EvalScore.truthNN(record).filter { !excluded($0.end) && !excluded($0.end - $0.ms / 1000) }
    #expect(score.pairTruth?.intervals == scorable.count)
  }

  @Test("A fixed delay is bias, not spread; a lost tenth of the beats and extra beats cost F1 as defined")
  func knownFaults() throws {
    let late = try EvalSet.score(Self.spec, analyzer: Self.oracle { $0.map { $0 + 0.02 } })
    #expect(abs((late.timingBiasMs ?? 0) - 20) < 1e-6)
    // A constant delay leaves every detected interval as it was: the detector's SDNN over the true pairs is exact.
    let pairs = try #require(late.pairDetected?.sdnnMs)
    #expect(abs(pairs - (late.pairTruth?.sdnnMs ?? 0)) < 1e-6)
    #expect((late.timingSDMs ?? 1) < 1e-6)
    #expect(late.f1 == 1)
    let tooLate = try EvalSet.score(Self.spec, analyzer: Self.oracle { $0.map { $0 + 0.16 } })
    #expect(tooLate.truePositives < tooLate.falseNegatives, "160 ms off is outside the ±150 ms tolerance")

    let thinned = try EvalSet.score(Self.spec, analyzer: Self.oracle { beats in
      beats.enumerated().filter { $0.offset % 10 != 5 }.map(\.element)
    })
    let found = Double(thinned.truePositives)
    #expect(thinned.falsePositives == 0 && thinned.falseNegatives > 0)
    #expect(abs(thinned.f1 - 2 * found / (2 * found + Double(thinned.falseNegatives))) < 1e-12)
    let doubled = try EvalSet.score(Self.spec, analyzer: Self.oracle { beats in
      (beats + beats.map { $0 + 0.4 }).sorted()
    })
    #expect(doubled.falseNegatives == 0 && doubled.falsePositives > 0)
  }

  @Test("Excluded spans count neither way: a beat reported there is not a false positive")
  func excludedSpans() throws {
    let spec = EvalRecordSpec(condition: .lifted, rateHz: 50, seed: 1, durationSeconds: 120)
    let record = try EvalSet.record(spec)
    let excluded = try #require(record.excludedSpans.last)
    let extra = stride(from: excluded.start + 0.1, to: excluded.end, by: 0.5).map { $0 }
    let score = try EvalSet.score(spec, analyzer: Self.oracle { ($0 + extra).sorted() })
    #expect(score.falsePositives == 0)
    #expect(score.f1 == 1)
    #expect(score.windows.contains { $0.kind == .lifted } || excluded.end - excluded.start < 40)
  }

  @Test("True NN intervals leave out both intervals around a premature beat and keep their neighbours")
  func truthNN() throws {
    let record = try EvalSet.record(Self.spec)
    let nn = EvalScore.truthNN(record)
    let beats = record.visibleBeats
    let premature = beats.filter(\.premature).map(\.number)
    #expect(!premature.isEmpty)
    for number in premature {
      #expect(!nn.contains { $0.endNumber == number || $0.endNumber == number + 1 })
      #expect(nn.contains { $0.endNumber == number - 1 } || number - 1 == beats.first?.number)
    }
    #expect(nn.count == beats.count - 1 - 2 * premature.count)
  }

  @Test("The subset covers every condition at three rates; an exact analyzer scores F1 1 on all of it")
  func subset() throws {
    let specs = EvalSet.subsetSpecs()
    #expect(Set(specs.map(\.condition)) == Set(EvalCondition.allCases))
    #expect(specs.count == 3 * EvalCondition.allCases.count)
    let summaries = try EvalSet.summaries(specs, analyzer: Self.oracle())
    for condition in EvalCondition.allCases {
      let summary = try #require(summaries[condition])
      #expect(summary.records == 3 && summary.f1 == 1 && summary.falsePositives == 0, "\(condition)")
      #expect(summary.timingSDMs == 0)
    }
  }

  @Test("The stressmon adapter shares the truth's time base (sample n at n / rate)")
  func stressmonAdapter() throws {
    // A plumbing check, not an accuracy target: on a clean record nearly every beat must match within ±150 ms
    // and the bias must be a few ms; a polarity or time-base slip would fail both.
    let score = try EvalSet.score(condition: .clean, rateHz: 100, analyzer: .stressmon)
    #expect(score.f1 > 0.9, "F1 \(score.f1)")
    #expect(abs(score.timingBiasMs ?? 100) < 20, "bias \(score.timingBiasMs ?? .nan) ms")
    #expect(score.windows.count >= 5)
  }
}
