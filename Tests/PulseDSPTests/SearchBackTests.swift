import Analysis
import EvaluationSet
import PulseDSP
import Testing

/// Search-back (BeatDetector+SearchBack.swift) on the evaluation set's seeded subset: it recovers nothing from a
/// clean regular pulse, a recovered beat comes with the beat that revealed it, and HRV never leans on it. How many
/// beats it recovers, and how many are true, is the accuracy gate's to judge (scripts/bench-gate).
@Suite(
  "Search-back for missed beats",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct SearchBackTests {
  struct Run {
    var record: EvalRecord
    var result: AnalysisRecord
  }

  static func run(_ condition: EvalCondition) throws -> [Run] {
    try EvalSet.subsetSpecs().filter { $0.condition == condition }.map { spec in
      let record = try EvalSet.cachedRecord(spec)
      return Run(record: record, result: try EvalAnalyzer.analysis(of: record))
    }
  }

  @Test("A clean regular pulse needs no search-back")
  func quietOnCleanPulses() throws {
    for run in try Self.run(.clean) {
      #expect(run.result.recoveredCount == 0, "\(run.record.name): \(run.result.recoveredCount) recovered")
    }
  }

  @Test("A recovered beat comes with the beat that revealed it, and no interval used for HRV ends or starts at it")
  func reportingAndHRV() throws {
    for run in try Self.run(.prematureCompensatory) + Self.run(.af) {
      let beats = run.result.beats
      for (i, beat) in beats.enumerated() where beat.beat.recovered {
        #expect(i + 1 < beats.count && beats[i + 1].beat.reportedAt == beat.beat.reportedAt)
        #expect(!run.result.intervals.contains { $0.startSeconds == beat.seconds || $0.endSeconds == beat.seconds })
      }
      // The real-time latency figure leaves the late ones out.
      #expect(run.result.maximumLatencySeconds <= 0.3, "\(run.record.name)")
    }
  }
}
