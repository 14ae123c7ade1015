import ArgumentParser
import EvaluationSet
import Foundation

/// `stressmon-evalset`: writes the evaluation set (docs/evaluation-set.md) to a folder, or describes the real
/// material it is made from. Test-only; scripts/bench-accuracy runs it.
struct EvalSetTool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stressmon-evalset",
    abstract: "Semi-synthetic raw MAX30102 recordings with exact beat truth, made from the shared real data.",
    discussion: """
      The material is read from the shared data set ($STRESSMON_DATA, else ../shared/data beside the repository, else \
      the cache scripts/fetch-data fills).
      The same seeds always give the same files.
      """,
    subcommands: [Write.self, Score.self, DetectorLoop.self, Errors.self, WindowErrors.self, Material.self],
    defaultSubcommand: Write.self)
}

struct Write: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write every record as <name>.csv + <name>.json, and index.json listing them.")

  @Option(name: .long, help: "Folder to write into (created if missing).")
  var out: String

  @OptionGroup var selection: Selection

  @Flag(name: .long, help: "Render the pulse trains without noise, drift, wander or motion (checking the truth).")
  var noiseFree = false

  @Flag(name: .long, help: "Print the index as JSON on stdout.")
  var json = false

  func run() throws {
    let specs = selection.specs
    if let reason = EvalSet.unavailableReason { fail("stressmon-evalset: \(reason)", code: 66) }
    do {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      fail(
        "stressmon-evalset: cannot create '\(out)': \(error.localizedDescription); choose a writable --out", code: 73)
    }
    var index: [[String: Any]] = []
    for spec in specs {
      let record = try EvalSet.record(spec, noiseFree: noiseFree)
      do {
        try record.write(to: out)
      } catch {
        fail("stressmon-evalset: cannot write \(record.name) into '\(out)': \(error.localizedDescription)", code: 73)
      }
      index.append([
        "name": record.name, "condition": spec.condition.rawValue, "rate_hz": spec.rateHz, "seed": spec.seed,
        "duration_s": record.durationSeconds, "beats": record.visibleBeats.count,
      ])
      if !json { print("\(record.name): \(record.samples.count) samples, \(record.visibleBeats.count) beats") }
    }
    let data = try JSONSerialization.data(withJSONObject: ["records": index], options: [.sortedKeys])
    try data.write(to: URL(fileURLWithPath: out + "/index.json"))
    if json {
      print(String(decoding: data, as: UTF8.self))
    } else {
      print("Wrote \(specs.count) records to \(out)")
    }
  }
}

/// Which records: the flags shared by `write` and the scoring commands.
struct Selection: ParsableArguments {
  @Option(name: .long, help: "Records per condition and rate.")
  var seeds = 2

  @Option(name: .long, help: "The first seed; seeds never measured on make a held-out set (e.g. 101).")
  var firstSeed = 1

  @Option(name: .long, help: "Length of each record, seconds.")
  var duration = 300.0

  @Option(name: .long, help: "Only these conditions (comma-separated, e.g. clean,noisy).")
  var conditions: String?

  @Option(name: .long, help: "Only these rates in Hz (comma-separated, from 25,50,100,200,400).")
  var rates: String?

  func validate() throws {
    guard seeds >= 1, seeds <= 100 else { throw ValidationError("--seeds must be 1…100") }
    guard firstSeed >= 1, firstSeed <= 1_000_000 else { throw ValidationError("--first-seed must be 1…1000000") }
    guard duration >= 10, duration <= 7200 else { throw ValidationError("--duration must be 10…7200 s") }
    if let conditions {
      for name in conditions.split(separator: ",") where EvalCondition(rawValue: String(name)) == nil {
        throw ValidationError(
          "unknown condition '\(name)'; known: \(EvalCondition.allCases.map(\.rawValue).joined(separator: ","))")
      }
    }
    if let rates, rates.split(separator: ",").contains(where: { Double($0) == nil }) {
      throw ValidationError("--rates: give numbers, e.g. 25,100")
    }
  }

  var specs: [EvalRecordSpec] {
    var specs = EvalSet.fullSpecs(seeds: seeds, firstSeed: firstSeed, durationSeconds: duration)
    if let conditions {
      let wanted = conditions.split(separator: ",").map(String.init)
      specs = specs.filter { wanted.contains($0.condition.rawValue) }
    }
    if let rates {
      let wanted = rates.split(separator: ",").compactMap { Double($0) }
      specs = specs.filter { wanted.contains($0.rateHz) }
    }
    return specs
  }
}

/// The records a scoring command reads: the tests' subset, or with `--all` the set as `Selection` picks it. The flags
/// shared by `score`, `errors` and `window-errors`.
struct ScoredSelection: ParsableArguments {
  @Flag(name: .long, help: "Score the whole set as selected by the flags below instead of the tests' subset.")
  var all = false

  @OptionGroup var selection: Selection

  /// The chosen records; exits with a clear line when the shared data set is not there.
  func specs() -> [EvalRecordSpec] {
    if let reason = EvalSet.unavailableReason { fail("stressmon-evalset: \(reason)", code: 66) }
    return all ? selection.specs : EvalSet.subsetSpecs()
  }
}

struct Score: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Score stressmon's analysis chain (in process) per condition, as the tests do.",
    discussion: """
      Without flags: the tests' subset (every condition at 25, 100 and 400 Hz, 120 s, seed 1). The figures are
      EvalSummary's, defined as scripts/accuracy_score.py defines them (bench-accuracy adds the peers).
      """)

  @OptionGroup var records: ScoredSelection

  @Flag(name: .long, help: "JSON on stdout.")
  var json = false

  func run() throws {
    let specs = records.specs()
    let scores = try specs.map { try EvalSet.score($0, analyzer: .stressmon) }
    var groups: [(String, EvalSummary)] = EvalCondition.allCases.compactMap { condition in
      let mine = scores.filter { $0.condition == condition }
      return mine.isEmpty ? nil : (condition.rawValue, EvalSummary(mine))
    }
    // Pooled: every record, and those at 50 Hz and up (issue 12's window targets).
    groups.append(("all", EvalSummary(scores)))
    groups.append(("all_50hz_up", EvalSummary(scores.filter { $0.rateHz >= 50 })))
    let rows: [[String: Any]] = groups.map { name, s in
      let figures: [String: Double?] = [
        "f1": s.f1, "min_f1": s.minimumF1, "bias_ms": s.timingBiasMs, "sd_ms": s.timingSDMs,
        "sdnn_median": s.sdnnMedianError, "sdnn_p90": s.sdnnP90Error, "rmssd_median": s.rmssdMedianError,
        "rmssd_p90": s.rmssdP90Error, "sdnn_within10": s.sdnnWithin10, "clean_shown": s.cleanShown,
        "noisy_uncategorised": s.noisyUncategorised, "lifted_uncategorised": s.liftedUncategorised,
        "record_sdnn_median": s.recordSDNNMedianError, "record_rmssd_median": s.recordRMSSDMedianError,
        "pair_sdnn_median": s.pairSDNNMedianError, "cleaning_sdnn_median": s.cleaningSDNNMedianError,
      ]
      var row: [String: Any] = ["condition": name, "records": s.records, "tp": s.truePositives,
        "fp": s.falsePositives, "fn": s.falseNegatives]
      for (key, value) in figures { row[key] = value ?? NSNull() }
      return row
    }
    if json {
      let data = try JSONSerialization.data(withJSONObject: ["conditions": rows], options: [.sortedKeys])
      print(String(decoding: data, as: UTF8.self))
      return
    }
    func f(_ v: Any?, _ digits: Int = 1) -> String {
      guard let d = v as? Double else { return "–" }
      return String(format: "%.\(digits)f", d)
    }
    print("condition, records: F1 (lowest record); timing bias ± SD ms; window |SDNN error| and |RMSSD error|"
      + " median / 90th percentile ms")
    for r in rows {
      print(
        "\(r["condition"]!), \(r["records"]!): F1 \(f(r["f1"], 3)) (\(f(r["min_f1"], 3))); "
          + "timing \(f(r["bias_ms"])) ± \(f(r["sd_ms"])); SDNN \(f(r["sdnn_median"])) / \(f(r["sdnn_p90"])); "
          + "RMSSD \(f(r["rmssd_median"])) / \(f(r["rmssd_p90"]))")
    }
  }
}

struct Material: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Describe the real material: pulse shapes, noise and motion residuals, RR series.")

  @Flag(name: .long, help: "JSON on stdout (the shapes sampled at 100 phase points).")
  var json = false

  func run() throws {
    guard let material = EvalMaterial.shared else {
      fail("stressmon-evalset: \(EvalSet.unavailableReason ?? "no material")", code: 66)
    }
    let shapes: [[String: Any]] = material.shapes.map { s in
      [
        "source": s.source, "cycle_s": s.cycleSeconds, "peak_phase": s.peakPhase, "cycles": s.cyclesAveraged,
        "shape": (0..<100).map { s.value(atPhase: Double($0) / 100) },
      ]
    }
    let tracks = { (tracks: [EvalMaterial.Track]) -> [[String: Any]] in
      tracks.map { ["source": $0.source, "seconds": Double($0.values.count) / $0.rateHz, "sd": $0.standardDeviation] }
    }
    let rr: [[String: Any]] = material.rrSeries.map { ["name": $0.name, "intervals": $0.intervalsMs.count] }
    if json {
      let object: [String: Any] = [
        "shapes": shapes, "noise": tracks(material.noise), "motion": tracks(material.motion), "rr": rr,
      ]
      let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      print(String(decoding: data, as: UTF8.self))
      return
    }
    for s in material.shapes {
      print(
        "shape \(s.source): cycle \(s.cycleSeconds) s, peak at phase \(s.peakPhase), \(s.cyclesAveraged) cycles")
    }
    for t in material.noise {
      print("noise \(t.source): \(Double(t.values.count) / t.rateHz) s, SD \(t.standardDeviation * 1e6) ppm of DC")
    }
    for t in material.motion {
      print("motion \(t.source): \(Double(t.values.count) / t.rateHz) s, SD \(t.standardDeviation) pulse heights")
    }
    for r in material.rrSeries { print("rr \(r.name): \(r.intervalsMs.count) intervals") }
  }
}

/// One line on stderr, then exit with a sysexits code.
func fail(_ message: String, code: Int32) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(code)
}

EvalSetTool.main()
