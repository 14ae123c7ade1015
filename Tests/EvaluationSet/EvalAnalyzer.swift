import Analysis
import PulseDSP

/// What an analyzer reports on a record, in the terms the scoring needs.
public struct AnalyzerOutput: Sendable {
  /// Reported beats (systolic peaks), stream seconds.
  public var beatTimesSeconds: [Double]
  public var windows: [AnalyzerWindow]
  /// HRV of the analyzer's clean intervals over the whole record; nil when it has none.
  public var sdnnMs: Double?
  public var rmssdMs: Double?

  public init(beatTimesSeconds: [Double], windows: [AnalyzerWindow], sdnnMs: Double?, rmssdMs: Double?) {
    self.beatTimesSeconds = beatTimesSeconds
    self.windows = windows
    self.sdnnMs = sdnnMs
    self.rmssdMs = rmssdMs
  }
}

/// One HRV window as the device would show it (or not).
public struct AnalyzerWindow: Sendable {
  public var startSeconds: Double
  public var endSeconds: Double
  /// Whether the device shows it (a category); otherwise "uncategorised".
  public var shown: Bool
  public var sdnnMs: Double?
  public var rmssdMs: Double?

  public init(startSeconds: Double, endSeconds: Double, shown: Bool, sdnnMs: Double?, rmssdMs: Double?) {
    self.startSeconds = startSeconds
    self.endSeconds = endSeconds
    self.shown = shown
    self.sdnnMs = sdnnMs
    self.rmssdMs = rmssdMs
  }
}

/// Something that analyses a record: stressmon's `PulseAnalyzer` (`.stressmon`), or any closure.
public struct EvalAnalyzer: Sendable {
  public let name: String
  public let run: @Sendable (EvalRecord) throws -> AnalyzerOutput

  public init(name: String, run: @escaping @Sendable (EvalRecord) throws -> AnalyzerOutput) {
    self.name = name
    self.run = run
  }

  /// `PulseAnalyzer` with its defaults, as `stressmon analyze` runs a file whose sidecar says "inverted".
  public static let stressmon = EvalAnalyzer.stressmon(configuration: PulseAnalyzer.Configuration())

  /// `PulseAnalyzer` with `configuration` (e.g. a cleaner variant under test), inverted polarity, the whole
  /// record in blocks of 4096 samples.
  public static func stressmon(configuration: PulseAnalyzer.Configuration) -> EvalAnalyzer {
    EvalAnalyzer(name: "stressmon") { record in
      output(of: try analysis(of: record, configuration: configuration))
    }
  }

  /// Every event of `PulseAnalyzer` with `configuration` on `record` (inverted polarity, the whole record in
  /// blocks of 4096 samples), for tests and tools that look past the scored figures.
  public static func analysis(
    of record: EvalRecord, configuration: PulseAnalyzer.Configuration = PulseAnalyzer.Configuration()
  ) throws -> AnalysisRecord {
    var analyzer = try PulseAnalyzer(rateHz: record.rateHz, polarity: .inverted, configuration: configuration)
    var result = AnalysisRecord()
    var start = 0
    while start < record.samples.count {
      let end = min(record.samples.count, start + 4096)
      analyzer.process(block: Array(record.samples[start..<end])) { result.add($0) }
      start = end
    }
    analyzer.finish { result.add($0) }
    return result
  }

  /// What the scoring needs from an analysis: the reported beats, the windows, the whole record's HRV.
  public static func output(of result: AnalysisRecord) -> AnalyzerOutput {
    let overall = result.overallHRV
    return AnalyzerOutput(
      beatTimesSeconds: result.reportedBeats.map(\.seconds),
      windows: result.windows.map {
        AnalyzerWindow(
          startSeconds: $0.startSeconds, endSeconds: $0.endSeconds, shown: $0.quality.isCategorised,
          sdnnMs: $0.metrics?.sdnnMs, rmssdMs: $0.metrics?.rmssdMs)
      },
      sdnnMs: overall?.sdnnMs, rmssdMs: overall?.rmssdMs)
  }
}
