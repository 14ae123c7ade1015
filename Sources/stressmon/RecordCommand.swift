import ArgumentParser
import CommandSupport
import Config
import Dispatch
import Monitor
import Platform
import Sensors
import Signals
import Synchronization

/// `stressmon record`: raw capture from the board's sensor into a recording that `analyze` and replay read.
struct RecordCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Record the raw pulse signal (IR, red, lost samples) from the board's sensor to a CSV file.",
    discussion: """
      Writes FILE.csv with the columns ir, red (and green on three-LED parts) and gap: one row per sample, raw \
      sensor counts, and in 'gap' the number of samples lost just before that row (a FIFO overflow, a bus \
      error), so nothing downstream joins the two sides of a gap. Beside it, FILE.json records the sample rate, \
      the polarity (raw light intensity: pulses point down, 'inverted') and the sensor settings. Both are \
      exactly what 'stressmon analyze' and '--source replay:FILE' read.

      Without --duration it records until Ctrl-C (the file is completed either way). Progress is shown on \
      stderr when it is a terminal. On the simulated board ('--board sim') it records the emulated MAX30102; \
      '--speed max' then records as fast as the machine allows instead of in real time.

      Examples:
        stressmon record --board rpizero2w --out morning.csv --duration 300
        stressmon record --board sim --out sim.csv --duration 60 --speed max --json
      """
  )

  @Option(name: .long, help: ArgumentHelp("Board name (rpi3, rpi4, rpi5, rpizero2w, sim) or a board file path.", valueName: "name|file"))
  var board: String

  @Option(name: .long, help: ArgumentHelp("The CSV file to write; the sidecar goes beside it as .json.", valueName: "file.csv"))
  var out: String

  @Option(
    name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds to record (default: until Ctrl-C).", valueName: "s"),
    transform: OptionParse.number("s", RecordCommand.durationRange))
  var duration: Double?

  @Option(
    name: .long,
    help: ArgumentHelp("realtime, or max to record a simulated board as fast as possible.", valueName: "speed"))
  var speed = RecordSpeed.realtime

  @Flag(name: .long, help: "Print one JSON object on stdout when done instead of a sentence.")
  var json = false

  /// Longest recording accepted: one day.
  static let durationRange = 0.1...86_400.0

  func run() async throws {
    let seconds = duration
    let loaded = try DoctorCommand.loadBoard(board)
    let pacing: Pacing
    switch speed {
    case .realtime: pacing = .realtime
    case .max:
      guard loaded.sensor.part == .emulated else {
        throw CLIFailure.usage("--speed max needs a simulated board ('--board sim'): a real sensor delivers in real time")
      }
      guard seconds != nil else { throw CLIFailure.usage("--speed max needs --duration (it would never stop)") }
      pacing = .asFastAsPossible
    }
    let source: any PulseSource
    do {
      source = try PulseSourceFactory.make(board: loaded, options: PulseSourceOptions(pacing: pacing))
    } catch {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
    let info = source.info
    let writer: RecordingWriter
    do { writer = try RecordingWriter(path: out, channels: info.channels) } catch {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
    let target = seconds.map { Int(($0 * info.sampleRateHz).rounded()) }
    let stop = StopFlag()
    let signals = Self.stopOnSignals { stop.set() }
    defer { signals.forEach { $0.cancel() } }
    var summary: RecordSummary
    do {
      summary = try await Self.capture(
        source: source, writer: writer, target: target, stop: stop, showProgress: CLIOutput.stderrIsTerminal)
    } catch let error as SensorError {
      try? writer.finish(sidecar: sidecar(info: info, board: loaded, partial: true))
      throw CLIFailure(code: error.sysexitCode, message: "\(error.description) (the samples so far are in \(out))")
    } catch let error as RecordingError {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
    do { try writer.finish(sidecar: sidecar(info: info, board: loaded, partial: false)) } catch {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
    summary.path = out
    summary.sidecar = RecordingSidecar.path(forRecording: out)
    summary.sampleRateHz = info.sampleRateHz
    summary.sensor = info.settings
    if json {
      try CLIOutput.json(summary)
    } else {
      CLIOutput.line(
        "Recorded \((Double(summary.samples) / info.sampleRateHz).formatted(decimals: 1)) s (\(summary.samples) samples "
          + "at \(info.sampleRateHz.formatted(decimals: 0))/s, \(summary.lostSamples) lost in "
          + "\(counted(summary.gaps, "gap"))) "
          + "to \(out) and \(summary.sidecar).")
    }
  }

  // MARK: - Private

  /// Reads blocks until `target` samples (timeline positions, gaps included) or a stop signal.
  private static func capture(
    source: any PulseSource, writer: RecordingWriter, target: Int?, stop: StopFlag, showProgress: Bool
  ) async throws -> RecordSummary {
    var summary = RecordSummary()
    try await source.start()
    var nextProgress = 0
    var row = [Int32](repeating: 0, count: source.info.channels.count)
    defer { if showProgress { progressLine("") } }
    while let block = try await source.nextBlock() {
      var count = block.count
      if let target { count = min(count, max(0, target - block.firstSampleIndex)) }
      if block.gapBefore > 0 && count > 0 {
        writer.markGap(block.gapBefore)
        summary.gaps += 1
        summary.lostSamples += block.gapBefore
      }
      for i in 0..<count {
        row[0] = block.ir[i]
        if row.count > 1 { row[1] = block.red[i] }
        if row.count > 2 { row[2] = block.green[i] }
        try writer.append(row)
      }
      summary.samples += count
      if block.contact == .noFinger { summary.noFingerSamples += count }
      let position = block.firstSampleIndex + count
      if showProgress && position >= nextProgress {
        let seconds = Double(position) / source.info.sampleRateHz
        progressLine("recording: \(seconds.formatted(decimals: 0)) s, \(summary.samples) samples, "
          + "\(summary.lostSamples) lost, contact \(block.contact.rawValue)")
        nextProgress = position + Int(source.info.sampleRateHz)
      }
      if let target, position >= target { break }
      if stop.isSet { break }
    }
    await source.stop()
    return summary
  }

  private func sidecar(info: PulseSourceInfo, board: Board, partial: Bool) -> RecordingSidecar {
    var notes = "Raw \(info.kind) capture by 'stressmon record' on board \(board.name)"
    if partial { notes += "; stopped early by an error" }
    var sidecar = RecordingSidecar(
      fs: info.sampleRateHz, polarity: info.polarity, reference: "none", beats: [], source: "stressmon record --board \(board.name)",
      notes: notes + ".", sensor: info.settings)
    if board.sensor.part == .emulated, let recording = board.sensor.recording {
      let license = (try? RecordingSidecar.load(forRecording: recording))??.license
      sidecar.license = license.map { "derived from \(recording): \($0)" }
      sidecar.notes = notes + "; emulator fed with \(recording)."
    }
    return sidecar
  }

  /// Ctrl-C and SIGTERM end the recording cleanly (the file and sidecar are completed).
  private static func stopOnSignals(_ stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: stop)
      source.resume()
      return source
    }
  }

  private static func progressLine(_ text: String) {
    try? FileDescriptor.standardError.writeAll(("\r\u{1B}[K" + text).utf8)
  }
}

/// Set from the signal handler's queue, read by the capture loop between blocks (at most 100 ms apart).
final class StopFlag: Sendable {
  private let flag = Mutex(false)

  func set() { flag.withLock { $0 = true } }
  var isSet: Bool { flag.withLock { $0 } }
}

/// The JSON shape of `stressmon record --json`.
struct RecordSummary: Encodable, Sendable {
  var path = ""
  var sidecar = ""
  var samples = 0
  var gaps = 0
  var lostSamples = 0
  var noFingerSamples = 0
  var sampleRateHz = 0.0
  var sensor = ""

  enum CodingKeys: String, CodingKey {
    case path, sidecar, samples, gaps, sensor
    case lostSamples = "lost_samples"
    case noFingerSamples = "no_finger_samples"
    case sampleRateHz = "sample_rate_hz"
  }
}
