import Platform
import PulseDSP
import Signals

/// A progress bar on stderr for long files, only when stderr is a terminal (never in pipes, logs or tests).
struct ProgressBar {
  /// Files smaller than this finish before a bar is worth drawing.
  static let minimumBytes: Int64 = 8 << 20

  private var enabled: Bool
  private var estimatedRows: Double = 1
  private var rows = 0
  private var shownPercent = -1

  /// `estimatedRows`: the file's `estimatedRows(path:)`, which the caller has already taken (it sizes the record too).
  init(path: String, estimatedRows: Double?, enabled: Bool) {
    self.enabled = false
    guard enabled, Self.fileBytes(path) >= Self.minimumBytes, let estimatedRows else { return }
    self.estimatedRows = estimatedRows
    self.enabled = true
  }

  /// Rows of the file ≈ its size / bytes per row of its first 64 KiB; nil when it cannot be read or has no rows.
  static func estimatedRows(path: String) -> Double? {
    let size = fileBytes(path)
    guard size > 0, let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
    defer { try? file.close() }
    var head = [UInt8](repeating: 0, count: 1 << 16)
    guard let got = try? head.withUnsafeMutableBytes({ raw in try file.read(into: raw) }), got > 0 else { return nil }
    let newlines = head[0..<got].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    guard newlines > 1 else { return nil }
    return Double(size) / (Double(got) / Double(newlines))
  }

  private static func fileBytes(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : 0
  }

  mutating func advance(by count: Int) {
    guard enabled else { return }
    rows += count
    let percent = min(99, Int(Double(rows) / estimatedRows * 100))
    guard percent != shownPercent else { return }
    shownPercent = percent
    let width = 40
    let filled = width * percent / 100
    draw("\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(percent) %")
  }

  mutating func finish() {
    guard enabled else { return }
    enabled = false
    draw("\r" + String(repeating: " ", count: 50) + "\r")
  }

  private func draw(_ text: String) {
    try? FileDescriptor.standardError.writeAll(text.utf8)
  }
}

/// `analyze --benchmark-detector RUNS` (hidden, for scripts/bench): the detector alone over the recording
/// held in memory, CSV parsing excluded. Prints samples per second as JSON.
enum HotLoopBenchmark {
  static func run(reader: RecordingReader, rateHz: Double, polarity: PulsePolarity, runs: Int) throws {
    var blocks: [RecordingBlock] = []
    while let block = try AnalyzeCommand.recording({ try reader.nextBlock() }) { blocks.append(block) }
    let samples = blocks.reduce(0) { $0 + $1.count }
    let configuration = BeatDetectorConfiguration(sampleRateHz: rateHz, polarity: polarity)
    var beats = 0
    let start = now()
    for _ in 0..<max(1, runs) {
      beats = try AnalyzeCommand.detector { try timedDetection(blocks, configuration) }
    }
    let seconds = now() - start
    let total = Double(samples) * Double(max(1, runs))
    CLIOutput.line(
      "{\"samples\": \(samples), \"runs\": \(max(1, runs)), \"seconds\": \(seconds), "
        + "\"samples_per_s\": \(seconds > 0 ? total / seconds : 0), \"beats\": \(beats)}")
  }

  /// The measured loop (scripts/bench points callgrind's --toggle-collect at this function).
  @inline(never)
  static func timedDetection(
    _ blocks: [RecordingBlock], _ configuration: BeatDetectorConfiguration
  ) throws(BeatDetectorError) -> Int {
    var detector = try BeatDetector(configuration: configuration)
    var beats = 0
    for block in blocks {
      if block.gapBefore > 0 { detector.reset(gap: block.gapBefore) }
      detector.process(block.channels[0]) { if case .beat = $0 { beats += 1 } }
    }
    return beats
  }

  static func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }
}
