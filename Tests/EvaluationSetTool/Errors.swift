import Analysis
import ArgumentParser
import EvaluationSet
import Foundation
import StressModel

/// `stressmon-evalset errors`: where the detector's false and missed beats fall, by the IBI cleaner's verdicts
/// around them ("ending|starting"; "R" marks a beat recovered by search-back, "W" the middle of an `extra_beat`
/// pair weaker than both neighbours, which `AnalysisRecord.reportedBeats` leaves out; "L" another beat it leaves
/// out: a replaced one, or the weak start of a premature pair). A false beat splits a true interval in two; a
/// missed one joins two. The verdicts say whether the cleaner saw the artefact (and so whether
/// the windows are safe from it) and which true beats a rule that drops flagged beats would take away too.
/// "premature-start": the beats a premature pair starts from, by their amplitude over the smaller of their
/// neighbours' (the rule `AnalysisRecord` applies below 0.5). "size": each beat's amplitude over the median of
/// the 8 kept before it (the IBI cleaner's `outsized_beat` test). `--list` prints every false beat.
/// Counts every detection, those left out of the reported beats included.
struct Errors: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Count false and missed beats by condition and by the cleaner's verdicts around them.")

  @OptionGroup var records: ScoredSelection

  @Flag(name: .long, help: "List every false beat: its time, the cleaner's verdicts and the intervals around it.")
  var list = false

  func run() throws {
    let specs = records.specs()
    var tables: [String: [String: [String: Int]]] = [:]
    for spec in specs {
      let record = try EvalSet.cachedRecord(spec)
      let result = try EvalAnalyzer.analysis(of: record)
      let scored = { (t: Double) in !record.excludedSpans.contains { $0.contains(t) } }
      let truth = record.visibleBeats.map(\.seconds).filter(scored)
      let keptIndices = result.beats.indices.filter { scored(result.beats[$0].seconds) }
      let kept = keptIndices.map { result.beats[$0] }
      let detected = kept.map(\.seconds)
      let pairs = BeatScoring.match(reference: truth, detected: detected, tolerance: EvalScore.toleranceSeconds)
      let matchedDetections = Set(pairs.map(\.1))
      let matchedTruth = Set(pairs.map(\.0))
      var ending: [Double: InterBeatInterval.Verdict] = [:]
      var starting: [Double: InterBeatInterval.Verdict] = [:]
      for interval in result.intervals {
        ending[interval.endSeconds] = interval.verdict
        starting[interval.startSeconds] = interval.verdict
      }
      func key(_ t: Double) -> String {
        "\(ending[t]?.rawValue ?? "-")|\(starting[t]?.rawValue ?? "-")"
      }
      let condition = spec.condition.rawValue
      var recentSizes: [Double] = []
      for (j, t) in detected.enumerated() {
        var tag = kept[j].beat.recovered ? "R " : ""
        let leftOut = result.isArtefact[keptIndices[j]]
        if ending[t] == .extraBeat && starting[t] == .extraBeat && j > 0 && j + 1 < kept.count {
          let a = kept[j].beat.amplitudeQ8
          let weaker = a < kept[j - 1].beat.amplitudeQ8 && a < kept[j + 1].beat.amplitudeQ8
          let verdict = (matchedDetections.contains(j) ? "TP" : "FP") + (weaker ? " weaker" : " stronger")
          tables[condition, default: [:]]["extra-drop", default: [:]][verdict, default: 0] += 1
          tag += weaker ? "W " : ""
        }
        if starting[t] == .prematureBeat && ending[t] != .prematureBeat && j > 0 && j + 1 < kept.count {
          let a = Double(kept[j].beat.amplitudeQ8)
          let ratio = a / Double(max(1, min(kept[j - 1].beat.amplitudeQ8, kept[j + 1].beat.amplitudeQ8)))
          let bucket = [0.4, 0.5, 0.6, 0.8].first { ratio < $0 }.map { "<\($0)" } ?? ">=0.8"
          let verdict = (matchedDetections.contains(j) ? "TP " : "FP ") + bucket
          tables[condition, default: [:]]["premature-start", default: [:]][verdict, default: 0] += 1
        }
        if leftOut && !tag.contains("W") { tag += "L " }
        let kind = matchedDetections.contains(j) ? "TP" : "FP"
        tables[condition, default: [:]][kind, default: [:]][tag + key(t), default: 0] += 1
        if kept[j].beat.replacesPrevious, j > 0 {
          let was = matchedDetections.contains(j - 1) ? "replaced TP" : "replaced FP"
          let now = matchedDetections.contains(j) ? "by TP" : "by FP"
          tables[condition, default: [:]]["replaced", default: [:]][was + " " + now, default: 0] += 1
        }
        if !kept[j].beat.recovered {
          // Size against the median of the last 8 beats kept (the IBI cleaner's outsized-beat test).
          let size = Double(kept[j].beat.amplitudeQ8)
          if recentSizes.count == 8 {
            let sorted = recentSizes.sorted()
            let ratio = size / max(1, (sorted[3] + sorted[4]) / 2)
            let bucket = [0.5, 1.5, 2, 2.5, 3, 4, 6].first { ratio < $0 }.map { "<\($0)" } ?? ">=6"
            tables[condition, default: [:]]["size", default: [:]][kind + " " + bucket, default: 0] += 1
          }
          if !leftOut { recentSizes = Array((recentSizes + [size]).suffix(8)) }
        }
        if kept[j].beat.recovered {
          tables[condition, default: [:]]["recovered", default: [:]][kind, default: 0] += 1
        }
      }
      var lengths: [Double: (ending: Double, starting: Double)] = [:]
      for interval in result.intervals where list {
        lengths[interval.endSeconds, default: (0, 0)].ending = interval.milliseconds
        lengths[interval.startSeconds, default: (0, 0)].starting = interval.milliseconds
      }
      for (j, t) in detected.enumerated() where list && !matchedDetections.contains(j) {
        let around = lengths[t] ?? (0, 0)
        print(
          String(
            format: "FP %@ %8.3f s  %@%@  intervals %5.0f | %5.0f ms  amplitude %.2f of the previous beat's",
            record.name, t, result.isArtefact[keptIndices[j]] ? "(left out) " : "", key(t), around.ending,
            around.starting,
            j > 0 ? Double(kept[j].beat.amplitudeQ8) / Double(max(1, kept[j - 1].beat.amplitudeQ8)) : 0))
      }
      for (j, t) in detected.enumerated() where !matchedDetections.contains(j) {
        // The nearest true beat: how far, and whether another detection matched it.
        guard let i = truth.indices.min(by: { abs(truth[$0] - t) < abs(truth[$1] - t) }) else { continue }
        let offset = Int(((t - truth[i]) * 10).rounded(.down)) * 100
        let key = "\(offset)ms \(matchedTruth.contains(i) ? "matched" : "missed")"
        tables[condition, default: [:]]["FP offset", default: [:]][key, default: 0] += 1
      }
      for (i, t) in truth.enumerated() where !matchedTruth.contains(i) {
        let around = result.intervals.first { $0.startSeconds <= t && $0.endSeconds > t }
        tables[condition, default: [:]]["FN", default: [:]][around?.verdict.rawValue ?? "-", default: 0] += 1
      }
    }
    for (condition, kinds) in tables.sorted(by: { $0.key < $1.key }) {
      print("== \(condition)")
      for kind in ["recovered", "replaced", "extra-drop", "premature-start", "size", "TP", "FP", "FN", "FP offset"] {
        let rows = (kinds[kind] ?? [:]).sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let total = rows.reduce(0) { $0 + $1.value }
        print("  \(kind) \(total): " + rows.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
      }
    }
  }
}
