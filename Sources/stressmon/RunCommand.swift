import ArgumentParser
import CommandSupport
import Config
import Dispatch
import Logging
import Monitor
import Platform
import Store
import StressModel
import Synchronization

/// `stressmon run`: the daemon. Sensor → beats → HRV windows → stress category on the LEDs and the e-ink panel,
/// stored in SQLite and synced to the hub; or, in kiosk mode, another device's category pulled from the hub.
struct RunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run the monitor: measure, show the stress category on the LEDs and panel, store and sync.",
    discussion: """
      Reads the pulse sensor, finds heart beats, and every 10 s scores the last 60 s of heart-rate variability \
      against your personal baseline. The category (relaxed, mild, moderate, high) is shown so that it reads \
      without colour: a blink rhythm on the LEDs, an icon and a fill pattern on the e-ink panel. Every result is \
      stored in the SQLite database (see 'stressmon history') and, with a hub configured, uploaded to it.

      What it shows before a category: starting, no contact (put a finger on the sensor), settling (the first \
      result comes a minute after contact), learning baseline (the first 30 good results use a default \
      baseline), uncategorised (poor signal: no made-up number), error (e.g. the sensor was lost: it is \
      reopened with backoff).

      Settings come from --config FILE (TOML; 'stressmon run --print-config' prints a complete commented one, \
      reference in docs/daemon.md); the flags below override it. Modes: desk; wearable (fewer writes and \
      wake-ups); kiosk (no sensor: shows the latest category of --device ID from the hub).

      On the simulated board ('--board sim') nothing needs hardware: the emulated MAX30102 replays a real \
      recording, the LED timeline is printed here and the panel is written to the PNG the board file names. \
      Ctrl-C or SIGTERM stops it cleanly: the store is flushed, the panel sleeps, the LEDs go off.

      Examples:
        stressmon run --board sim --db /tmp/demo.db --speed 10 --duration 360
        stressmon run --config /etc/stressmon/stressmon.toml
        stressmon run --board sim --source replay:day.csv --speed max --db day.db --json
        stressmon run --mode kiosk --config kiosk.toml --device desk-1
        stressmon run --print-config --board rpizero2w --mode wearable > /etc/stressmon/stressmon.toml
      """
  )

  @Option(name: .long, help: ArgumentHelp("The configuration file (TOML).", valueName: "file"))
  var config: String?

  @Option(
    name: .long,
    help: ArgumentHelp("Board name (rpi3, rpi4, rpi5, rpizero2w, sim) or a board file.", valueName: "name|file"))
  var board: String?

  @Option(
    name: .long,
    help: ArgumentHelp("max30102 (the board's sensor), replay:FILE.csv or synthetic.", valueName: "source"),
    completion: OptionParse.sourceCompletion, transform: OptionParse.source)
  var source: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "realtime, max (as fast as possible), or N for N× real time (simulated board or replay only).",
      valueName: "speed"),
    completion: OptionParse.speedCompletion, transform: OptionParse.speed)
  var speed: RunSpeed?

  @Option(
    name: .long, parsing: .unconditional,
    help: ArgumentHelp("Stop after this many seconds of data.", valueName: "s"),
    transform: OptionParse.number("s", RunCommand.durationRange))
  var duration: Double?

  @Option(
    name: .long,
    help: ArgumentHelp("The database (default: the config's, else the user's data directory).", valueName: "path"))
  var db: String?

  @Option(name: .long, help: ArgumentHelp("How the device is used (defaults and what runs).", valueName: "mode"))
  var mode: MonitorMode?

  @Option(name: .long, help: ArgumentHelp("This device's id; in kiosk mode, the device to show.", valueName: "id"))
  var device: String?

  @Flag(name: .long, help: "Print events as JSON lines on stdout instead of the text timeline.")
  var json = false

  @Flag(name: .customLong("print-config"), help: "Print the complete configuration (commented TOML) and exit.")
  var printConfig = false

  /// Longest run accepted by --duration: a year of data.
  static let durationRange = 1.0...(366 * 86_400.0)

  // MARK: - Run

  func run() async throws {
    let configuration = try resolvedConfiguration()
    let loaded = try DoctorCommand.loadBoard(configuration.device.board)
    if printConfig {
      print(configuration.commentedTOML(header: "Board \(loaded.name): \(loaded.description)."), terminator: "")
      return
    }
    let runSpeed = speed ?? .realtime
    var environment = MonitorEnvironment()
    environment.service = ServiceNotifier.fromEnvironment()
    let monitor = Monitor(
      configuration: configuration, board: loaded, speed: runSpeed, durationSeconds: duration, environment: environment)
    let signals = Self.stopOnSignals { name in monitor.stop(reason: name) } + [reloadOnHangUp(running: configuration)]
    defer { signals.forEach { $0.cancel() } }
    let printer = RunEventPrinter(json: json)
    let summary: MonitorSummary
    do {
      summary = try await monitor.run { printer.print($0) }
    } catch {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
    let database = summary.database ?? "the store"
    if summary.unwrittenMeasurements > 0 {
      throw CLIFailure.ioError(
        "\(counted(summary.unwrittenMeasurements, "measurement")) could not be written to \(database); "
          + "check the disk and the file's permissions (see the log above)")
    }
    if summary.droppedForSpace > 0 {
      throw CLIFailure.ioError(
        "the disk holding \(database) is full: deleted \(counted(summary.droppedForSpace, "measurement")) not yet "
          + "uploaded to make room (oldest first); free space on the disk and sync soon")
    }
    if summary.aheadOfClock > 0 {
      throw CLIFailure.internalError(
        "stamped after the clock's now: \(counted(summary.aheadOfClock, "row")); please report this bug "
          + "(see the log above)")
    }
  }

  // MARK: - Options

  /// Defaults of the mode, then the file, then the flags.
  func resolvedConfiguration() throws -> MonitorConfiguration {
    let flagMode = mode
    var configuration: MonitorConfiguration
    if let config {
      do {
        configuration = try MonitorConfigurationLoader.load(path: config, mode: flagMode)
      } catch {
        throw CLIFailure(code: error.sysexitCode, message: error.description)
      }
    } else {
      configuration = MonitorConfigurationLoader.defaults(mode: flagMode)
    }
    if let board { configuration.device.board = board }
    if let source { configuration.measurement.source = source }
    if let db { configuration.store.database = db }
    if let device { configuration.setDeviceFlag(device) }
    if !printConfig, let problem = configuration.problem() { throw CLIFailure.usage(problem) }
    return configuration
  }

  /// SIGHUP (`systemctl reload stressmon`): reads the configuration file again and checks it; the running daemon is
  /// neither stopped nor changed. The log says whether the file is valid and which sections differ from the
  /// running configuration, which then take effect with a restart (`systemctl restart stressmon`).
  private func reloadOnHangUp(running: MonitorConfiguration) -> any DispatchSourceSignal {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    let command = self
    source.setEventHandler {
      let logger = Logger(label: "stressmon.run")
      guard command.config != nil else {
        logger.notice("SIGHUP: no configuration file (--config) to read again; still running")
        return
      }
      do {
        let reread = try command.resolvedConfiguration()
        let changed = running.changedSections(comparedTo: reread)
        if changed.isEmpty {
          logger.notice("SIGHUP: configuration read again: unchanged; still running")
        } else {
          let sections = changed.map { "[\($0)]" }.joined(separator: ", ")
          logger.notice("""
            SIGHUP: configuration read again: \(sections) changed; still running with the old settings: restart \
            to apply them (systemctl restart stressmon)
            """)
        }
      } catch let failure as CLIFailure {
        logger.error("SIGHUP: the configuration has an error; still running with the old one: \(failure.message)")
      } catch {
        logger.error("SIGHUP: cannot read the configuration; still running with the old one: \(error)")
      }
    }
    source.resume()
    return source
  }

  /// SIGINT and SIGTERM stop the run gracefully; a second one exits at once (the first is still being handled).
  private static func stopOnSignals(_ stop: @escaping @Sendable (String) -> Void) -> [any DispatchSourceSignal] {
    let count = SignalCount()
    return [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")].map { number, name in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        if count.increment() > 1 {
          CLIOutput.error("\(name) again: exiting without finishing the shutdown")
          _exit(1)
        }
        stop(name)
      }
      source.resume()
      return source
    }
  }
}

/// Signals received so far (from the signal sources' queue).
final class SignalCount: Sendable {
  private let value = Mutex(0)

  func increment() -> Int {
    value.withLock { count in
      count += 1
      return count
    }
  }
}
