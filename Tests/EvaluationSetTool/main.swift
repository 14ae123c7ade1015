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
      The material is read from the shared data set ($STRESSMON_DATA, else ../shared/data beside the repository).
      The same seeds always give the same files.
      """,
    subcommands: [Write.self, Material.self], defaultSubcommand: Write.self)
}

struct Write: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write every record as <name>.csv + <name>.json, and index.json listing them.")

  @Option(name: .long, help: "Folder to write into (created if missing).")
  var out: String

  @Option(name: .long, help: "Records per condition and rate.")
  var seeds = 2

  @Option(name: .long, help: "Length of each record, seconds.")
  var duration = 300.0

  @Option(name: .long, help: "Only these conditions (comma-separated, e.g. clean,noisy).")
  var conditions: String?

  @Option(name: .long, help: "Only these rates in Hz (comma-separated, from 25,50,100,200,400).")
  var rates: String?

  @Flag(name: .long, help: "Render the pulse trains without noise, drift, wander or motion (checking the truth).")
  var noiseFree = false

  @Flag(name: .long, help: "Print the index as JSON on stdout.")
  var json = false

  func validate() throws {
    guard seeds >= 1, seeds <= 100 else { throw ValidationError("--seeds must be 1…100") }
    guard duration >= 10, duration <= 7200 else { throw ValidationError("--duration must be 10…7200 s") }
  }

  func run() throws {
    var specs = EvalSet.fullSpecs(seeds: seeds, durationSeconds: duration)
    if let conditions {
      let wanted = conditions.split(separator: ",").map { String($0) }
      for name in wanted where EvalCondition(rawValue: name) == nil {
        throw ValidationError(
          "unknown condition '\(name)'; known: \(EvalCondition.allCases.map(\.rawValue).joined(separator: ","))")
      }
      specs = specs.filter { wanted.contains($0.condition.rawValue) }
    }
    if let rates {
      let wanted = rates.split(separator: ",").compactMap { Double($0) }
      guard !wanted.isEmpty else { throw ValidationError("--rates: give numbers, e.g. 25,100") }
      specs = specs.filter { wanted.contains($0.rateHz) }
    }
    if let reason = EvalSet.unavailableReason { fail("stressmon-evalset: \(reason)", code: 66) }
    do {
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      fail("stressmon-evalset: cannot create '\(out)': \(error.localizedDescription); choose a writable --out", code: 73)
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
