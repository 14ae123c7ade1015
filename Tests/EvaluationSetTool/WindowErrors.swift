import Analysis
import ArgumentParser
import EvaluationSet
import Foundation
import StressModel

/// `stressmon-evalset window-errors`: the shown windows whose SDNN is more than 10 % off, against the right ones,
/// by the cleaner's verdicts inside them: which window signals would hide the wrong ones, and what they would
/// cost in right ones.
struct WindowErrors: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "window-errors", abstract: "Shown windows more than 10 % off, by the verdicts inside them.")

  @OptionGroup var records: ScoredSelection

  @Flag(name: .long, help: "List every window more than 10 % off.")
  var list = false

  func run() throws {
    let specs = records.specs()
    // Per shown window: more than 10 % off?, a clean stretch?, its condition, and the verdicts inside it.
    var rows: [(wrong: Bool, clean: Bool, condition: String, noise: Int, premature: Int, rejectedShare: Double)] = []
    for spec in specs {
      let record = try EvalSet.cachedRecord(spec)
      let result = try EvalAnalyzer.analysis(of: record)
      let score = EvalScore(record: record, output: EvalAnalyzer.output(of: result))
      for w in score.windows {
        guard let error = w.sdnnError, let truth = w.truth else { continue }
        let inside = result.intervals.filter { $0.endSeconds >= w.startSeconds && $0.endSeconds < w.endSeconds }
        let noiseVerdicts: [InterBeatInterval.Verdict] = [
          .extraBeat, .irregular, .misplacedBeat, .implausible, .missedBeat, .outsizedBeat,
        ]
        let noise = inside.filter { noiseVerdicts.contains($0.verdict) }.count
        let premature = inside.filter { $0.verdict == .prematureBeat }.count
        let rejected = Double(inside.filter { !$0.isClean }.count) / Double(max(1, inside.count))
        let off = abs(error) > 0.1 * truth.sdnnMs
        rows.append((off, w.kind == .clean, spec.condition.rawValue, noise, premature, rejected))
        if list && abs(error) > 0.1 * truth.sdnnMs {
          let format =
            "off: %@ %3.0fHz s%d %5.0f-%5.0f kind %@ truth %6.1f err %+6.1f (%+4.0f %%) noise %d prem %d rej %.2f"
          print(
            String(
              format: format, spec.condition.rawValue, spec.rateHz, spec.seed, w.startSeconds, w.endSeconds,
              w.kind.rawValue, truth.sdnnMs, error, 100 * error / truth.sdnnMs, noise, premature, rejected))
        }
      }
    }
    let wrong = rows.filter(\.wrong)
    let within = 100 * Double(rows.count - wrong.count) / Double(max(1, rows.count))
    print("shown \(rows.count), wrong \(wrong.count) (\(String(format: "%.1f", within)) % within 10 %)")
    let byCondition = Dictionary(grouping: wrong, by: \.condition).mapValues(\.count)
    for (condition, n) in byCondition.sorted(by: { $0.value > $1.value }) {
      print("  wrong in \(condition): \(n)")
    }
    for threshold in 1...6 {
      let hidden = rows.filter { $0.noise >= threshold }
      let hiddenWrong = hidden.filter(\.wrong).count
      let hiddenClean = hidden.filter { $0.clean && $0.condition != "af" }.count
      let kept = rows.count - hidden.count, keptWrong = wrong.count - hiddenWrong
      print(
        "noise-signature intervals >= \(threshold): hides \(hidden.count) (wrong \(hiddenWrong), "
          + "clean sinus \(hiddenClean)); "
        + "within 10 % \(String(format: "%.1f", 100 * Double(kept - keptWrong) / Double(max(1, kept)))) %")
    }
    let histogram = Dictionary(grouping: wrong, by: { min($0.noise, 9) }).mapValues(\.count).sorted { $0.key < $1.key }
    print("wrong windows by noise-signature count: \(histogram)")
    let right = rows.filter { !$0.wrong }
    let rightHistogram = Dictionary(grouping: right, by: { min($0.noise, 9) }).mapValues(\.count)
      .sorted { $0.key < $1.key }
    print("right windows by noise-signature count: \(rightHistogram)")
  }
}
