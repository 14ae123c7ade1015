import Analysis
import EvaluationSet
import Foundation
import PulseDSP
import Signals
import StressModel
import TestSupport
import Testing

@testable import stressmon

/// The pure core compiled as Embedded Swift (scripts/build-embedded) and run in QEMU gives exactly what the Linux
/// build gives: every beat, judged interval, detector state change and window, compared as bits, and the
/// `stressmon analyze --json` document rebuilt from the firmware's events is byte-identical to the real one.
@Suite("Embedded Swift in QEMU matches the Linux build bit for bit")
struct QEMUBitExactTests {
  static let armReason = QEMUFirmware.unavailableReason(.armv7em)
  static let a64Reason = QEMUFirmware.unavailableReason(.aarch64)

  @Test(
    "Cortex-M4 (mps2-an386): the demo recording, 1000 Hz conditioned BVP",
    .enabled(if: armReason == nil, Comment(rawValue: armReason ?? "")))
  func demoOnCortexM4() throws {
    try Self.check(csv: SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv", arch: .armv7em)
  }

  @Test(
    "Cortex-M4 (mps2-an386): a raw-intensity MAX30102 record at 100 Hz with the finger lifted (evaluation set)",
    .enabled(if: armReason == nil, Comment(rawValue: armReason ?? "")),
    .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
  func rawIntensityOnCortexM4() throws {
    try Self.withRawIntensityRecord { try Self.check(csv: $0, arch: .armv7em) }
  }

  @Test(
    "AArch64 (virt, Cortex-A53): the demo recording",
    .enabled(if: a64Reason == nil, Comment(rawValue: a64Reason ?? "")))
  func demoOnAArch64() throws {
    try Self.check(csv: SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv", arch: .aarch64)
  }

  // MARK: - Helpers

  /// One evaluation-set record (raw MAX30102 intensity, pulses down, 100 Hz, 5 minutes with a lifted finger),
  /// written as CSV + sidecar the way `stressmon-evalset write` does.
  static func withRawIntensityRecord(_ body: (String) throws -> Void) throws {
    let spec = EvalRecordSpec(condition: .lifted, rateHz: 100, seed: 1, durationSeconds: 300)
    let directory = try TemporaryDirectory("stressmon-embedded")
    defer { directory.remove() }
    try EvalSet.record(spec).write(to: directory.path)
    try body(directory.file(spec.name + ".csv"))
  }

  /// Runs `csv` through the firmware and through Linux, in process and as `stressmon analyze --json`.
  static func check(csv: String, arch: QEMUFirmware.Arch) throws {
    let reader = try RecordingReader(path: csv)
    var blocks: [RecordingBlock] = []
    while let block = try reader.nextBlock() { blocks.append(block) }
    let rate = try #require(reader.sidecar?.fs)
    let polarity = reader.sidecar?.polarity ?? .normal
    let windows = HRVWindowConfiguration()

    let output = try FirmwareOutput(
      text: QEMUFirmware.run(arch, input: FirmwareInput(rateHz: rate, polarity: polarity, windows: windows, blocks: blocks)))

    // Linux, in process: the same chain on the same blocks.
    var analyzer = try PulseAnalyzer(rateHz: rate, polarity: polarity, configuration: .init(windows: windows))
    var linux: [AnalysisEvent] = []
    // Cut as the firmware cuts them (32 samples per FIFO read); `analyze` reads whole blocks, and its document
    // must come out the same all the same.
    for block in blocks {
      let samples = block.channels[0]
      var start = 0
      repeat {
        let end = min(start + 32, samples.count)
        analyzer.process(block: Array(samples[start..<end]), gapBefore: start == 0 ? block.gapBefore : 0) {
          linux.append($0)
        }
        start = end
      } while start < samples.count
    }
    analyzer.finish { linux.append($0) }
    #expect(output.events.count == linux.count)
    let common = min(output.events.count, linux.count)
    if let first = (0..<common).first(where: { output.events[$0] != linux[$0] }) {
      Issue.record("first difference at event \(first): firmware \(output.events[first]) vs Linux \(linux[first])")
    }
    #expect(linux.contains { if case .window(let w) = $0 { w.stress != nil } else { false } }, "no scored window")

    // The whole `analyze --json` document, from the firmware's events, against the real command's.
    var record = AnalysisRecord()
    for event in output.events { record.add(event) }
    let samples = try #require(output.figures["stream_samples"])
    let report = AnalyzeReport(
      file: csv, rateHz: rate, samples: Int(samples), polarity: polarity, polaritySource: "sidecar",
      windowSeconds: windows.lengthSeconds, stepSeconds: windows.stepSeconds, record: record)
    let analyze = try CLIRunner.run(["analyze", csv, "--json"])
    #expect(analyze.status == 0, "\(analyze.stderr)")
    #expect(report.json.document.string + "\n" == analyze.stdout)

    // The counter counts instructions (2 000 000 in the calibration loop, to a tick).
    let perTick = try #require(output.figures["instructions_per_tick"])
    let calibration = try #require(output.figures["calibration_ticks"]) * perTick
    #expect(abs(calibration - 2_000_000) <= 2 * perTick)
    try FigureLog.record(arch: arch, csv: csv, figures: output.figures)
  }
}

/// With $STRESSMON_EMBEDDED_FIGURES set to a folder, the firmware's counts are kept there for
/// scripts/bench-embedded (one `<arch>-<recording>.txt` per run).
enum FigureLog {
  static func record(arch: QEMUFirmware.Arch, csv: String, figures: [String: Int64]) throws {
    guard let folder = ProcessInfo.processInfo.environment["STRESSMON_EMBEDDED_FIGURES"] else { return }
    let name = URL(fileURLWithPath: csv).deletingPathExtension().lastPathComponent
    let text = figures.keys.sorted().map { "\($0) \(figures[$0]!)" }.joined(separator: "\n") + "\n"
    try text.write(toFile: "\(folder)/\(arch.rawValue)-\(name).txt", atomically: true, encoding: .utf8)
  }
}
