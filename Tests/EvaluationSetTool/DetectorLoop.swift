import ArgumentParser
import EvaluationSet
import PulseDSP

/// `stressmon-evalset detector-loop`: the detector alone over one 300 s record, for counting its instructions per
/// sample under callgrind and comparing two builds on the same input:
///
///     valgrind --tool=callgrind --toggle-collect='*detectorLoopBody*' stressmon-evalset detector-loop --rate 100
///
/// (collected instructions / 30 000 at 100 Hz). `scripts/bench` counts `analyze`'s own loop on the shared recordings.
struct DetectorLoop: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detector-loop", abstract: "Run the detector alone over one record (a callgrind harness).")

  @Option(help: "Condition of the record.")
  var condition = "clean"

  @Option(help: "Rate of the record in Hz (25, 50, 100, 200, 400).")
  var rate = 100.0

  func run() throws {
    guard let kind = EvalCondition(rawValue: condition) else {
      throw ValidationError("unknown condition '\(condition)'")
    }
    let record = try EvalSet.cachedRecord(EvalRecordSpec(condition: kind, rateHz: rate, seed: 1, durationSeconds: 300))
    print("\(detectorLoopBody(record.samples, rate)) beats in \(record.samples.count) samples")
  }
}

/// Out of line, so that callgrind can collect exactly this.
@inline(never)
func detectorLoopBody(_ samples: [Int32], _ rate: Double) -> Int {
  guard var detector = try? BeatDetector(sampleRateHz: rate, polarity: .inverted) else { return 0 }
  var beats = 0
  detector.process(samples) { if case .beat = $0 { beats += 1 } }
  return beats
}
