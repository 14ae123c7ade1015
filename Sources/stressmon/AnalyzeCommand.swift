import Analysis
import ArgumentParser
import CommandSupport
import Platform
import PulseDSP
import Signals
import StressModel

/// `stressmon analyze`: beats, HRV and windowed stress of a recorded PPG file, through the same streaming
/// chain (`Analysis.PulseAnalyzer`) the daemon runs on the live sensor.
struct AnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Find heart beats, HRV and stress windows in a recorded PPG file.",
    discussion: """
      Reads a recording (CSV with a header row, one sample per row) and runs the same fixed-point beat \
      detector, IBI cleaning and 60 s HRV windows as the live monitor, so the result is what the device \
      would have shown.

      The channel is --column, else 'ppg', else 'ir'. A sidecar '<file>.json' beside the CSV (written by \
      'stressmon record', or shipped with a data set) gives the sample rate ('fs'), which way the pulse \
      points ('polarity': normal for conditioned BVP, inverted for raw light intensity such as a MAX30102 \
      IR count) and start-up samples to skip. --polarity and --invert override its polarity; a --rate \
      that contradicts its 'fs' is refused (the samples were taken at one rate: correct the sidecar if \
      it is wrong). Without a polarity anywhere, it is detected from the first minute (reported as \
      'detected').

      Windows of poor quality (no contact, saturated, poor signal, too few beats) are reported as \
      uncategorised instead of a made-up stress level.

      Examples:
        stressmon analyze capture.csv
        stressmon analyze finger.csv --rate 100 --invert --json
        stressmon analyze long.csv --window 120 --step 30
      """
  )

  @Argument(help: ArgumentHelp("The recording: CSV with a header row.", valueName: "file.csv"))
  var file: String

  @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz (default: the sidecar's 'fs').", valueName: "hz"))
  var rate: String?

  @Option(name: .long, help: ArgumentHelp("Column to analyse (default: 'ppg', else 'ir').", valueName: "name"))
  var column: String?

  @Flag(name: .long, help: "The pulse points down (raw light intensity); same as --polarity inverted.")
  var invert = false

  @Option(name: .long, help: ArgumentHelp("normal, inverted or auto (default: the sidecar's, else auto).", valueName: "p"))
  var polarity: String?

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp("HRV window length in seconds (default 60).", valueName: "s"),
    transform: OptionParse.number("s", AnalyzeCommand.shortestWindowSeconds...3600))
  var window: Double?

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp("Seconds between window ends (default 10).", valueName: "s"),
    transform: OptionParse.number("s", 1...3600))
  var step: Double?

  @Flag(name: .long, help: "Print one JSON object on stdout instead of a summary.")
  var json = false

  @Option(name: .customLong("benchmark-detector"), help: .hidden)
  var benchmarkRuns: Int?

  /// For scripts/bench: the seconds from opening the file to the last byte of output, on stderr as JSON.
  @Flag(name: .customLong("timing"), help: .hidden)
  var timing = false

  // MARK: - Run

  func run() throws {
    let started = HotLoopBenchmark.now()
    let reader = try Self.recording { try openRecording() }
    let rateHz = try resolveRate(reader.sidecar)
    let windows = HRVWindowConfiguration(lengthSeconds: window ?? 60, stepSeconds: step ?? 10)
    if let runs = benchmarkRuns {
      try HotLoopBenchmark.run(reader: reader, rateHz: rateHz, polarity: explicitPolarity(reader.sidecar) ?? .normal, runs: runs)
      return
    }
    // Read once: it sizes the record and draws the progress bar.
    let estimatedRows = ProgressBar.estimatedRows(path: file)
    let progress = ProgressBar(path: file, estimatedRows: estimatedRows, enabled: CLIOutput.stderrIsTerminal)
    var source = BlockSource(reader: reader, progress: progress)
    let (chosen, origin) = try resolvePolarity(reader.sidecar, source: &source, rateHz: rateHz)
    let analyzer = try Self.detector {
      try PulseAnalyzer(
        rateHz: rateHz, polarity: chosen, configuration: PulseAnalyzer.Configuration(windows: windows))
    }
    var record = AnalysisRecord()
    if let rows = estimatedRows {
      record.reserveCapacity(seconds: rows / rateHz, stepSeconds: windows.stepSeconds)
    }
    let samples = try AnalyzePipeline.run(analyzer, source: &source) { record.add($0) }
    source.progress.finish()
    let report = AnalyzeReport(
      file: file, rateHz: rateHz, samples: Int(samples), polarity: chosen, polaritySource: origin,
      windowSeconds: windows.lengthSeconds, stepSeconds: windows.stepSeconds, record: record)
    if json {
      report.json.document.withBytes { CLIOutput.line(bytes: $0) }
      if let hint = report.noWindowsHint { CLIOutput.error("warning: " + hint) }
    } else {
      for line in report.summaryLines { CLIOutput.line(line) }
    }
    if timing {
      let seconds = HotLoopBenchmark.now() - started
      CLIOutput.error("{\"seconds\": \(seconds), \"samples\": \(samples)}")
    }
  }

  // MARK: - Options

  /// The recording and its sidecar. A sidecar that does not parse is an error (analysing at a guessed rate would
  /// be wrong), unless the flags give what it would: the rate and the polarity. Then it is a warning.
  private func openRecording() throws(RecordingError) -> RecordingReader {
    let channels = column.map { [$0] }
    do {
      return try RecordingReader(path: file, channels: channels)
    } catch .badSidecar(let path, let reason) where rate != nil && (invert || polarity != nil) {
      CLIOutput.error(
        "warning: \(path): the sidecar JSON does not parse (\(reason)); ignoring it, the rate and polarity come "
          + "from the flags (fix or remove it to silence this)")
      return try RecordingReader(path: file, channels: channels, readSidecar: false)
    }
  }

  private func resolveRate(_ sidecar: RecordingSidecar?) throws -> Double {
    let supported = BeatDetectorConfiguration.supportedRates
    if let rate {
      guard let value = Double(rate.trimmingCharacters(in: " \t")), value.isFinite else {
        throw CLIFailure.usage("--rate needs a number in Hz, got '\(rate)'")
      }
      guard supported.contains(value) else { throw CLIFailure.badData(BeatDetectorError.unsupportedRate(value).description) }
      // Within 5 % it is a correction (a rounded or calibrated rate); beyond, a mistake such as 10 for 1000.
      if let fs = sidecar?.fs, fs.isFinite, abs(value - fs) > fs / 20 {
        throw CLIFailure.usage(
          "--rate \(Self.hz(value)) Hz contradicts the sidecar \(RecordingSidecar.path(forRecording: file)), "
            + "which says the file was sampled at \(Self.hz(fs)) Hz; leave out --rate, "
            + "or correct 'fs' in the sidecar if it is wrong")
      }
      return value
    }
    guard let fs = sidecar?.fs else {
      throw CLIFailure.badData(
        "\(file): unknown sample rate: no sidecar '\(RecordingSidecar.path(forRecording: file))' with 'fs'; give --rate HZ")
    }
    guard fs.isFinite, supported.contains(fs) else {
      throw CLIFailure.badData("\(file): the sidecar's rate: " + BeatDetectorError.unsupportedRate(fs).description)
    }
    return fs
  }

  /// The shortest `--window`: fewer beats than fit in it give no meaningful HRV.
  static let shortestWindowSeconds = 10.0

  /// "1000" for a whole rate, "99.95" for a fractional one.
  static func hz(_ value: Double) -> String {
    value == value.rounded() ? value.formatted(decimals: 0) : value.formatted(decimals: 3)
  }

  /// The polarity the flags or the sidecar state; nil when neither does (or --polarity auto).
  private func explicitPolarity(_ sidecar: RecordingSidecar?) throws -> PulsePolarity? {
    if invert { return .inverted }
    if let polarity {
      switch polarity.lowercased() {
      case "normal": return .normal
      case "inverted": return .inverted
      case "auto": return nil
      default: throw CLIFailure.usage("--polarity must be normal, inverted or auto, got '\(polarity)'")
      }
    }
    return sidecar?.polarity
  }

  private func resolvePolarity(
    _ sidecar: RecordingSidecar?, source: inout BlockSource, rateHz: Double
  ) throws -> (PulsePolarity, String) {
    if let explicit = try explicitPolarity(sidecar) {
      return (explicit, invert || polarity != nil ? "flag" : "sidecar")
    }
    let opening = try source.peekContiguous(samples: Int(PolarityGuess.seconds * rateHz))
    let guess = try Self.detector { try PolarityGuess.guess(samples: opening, rateHz: rateHz) }
    return (guess.polarity, "detected")
  }

  // MARK: - Errors

  /// Runs `body`, turning a recording error into its one-line CLI failure (66 no input, 65 bad data).
  static func recording<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as RecordingError {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
  }

  /// Runs `body`, turning a detector set-up error (an unsupported rate) into a bad-data failure (65).
  static func detector<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as BeatDetectorError { throw CLIFailure.badData(error.description) }
  }
}
