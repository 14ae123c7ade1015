import ArgumentParser
import Logging
import Platform

/// Entry point: parses, runs, and turns every failure into one line on stderr and a sysexits code.
@main
enum Main {
  static func main() async {
    let level = LogSetup.levelFromEnvironment()
    let journal = JournalLogHandler.stderrIsJournal()
    LoggingSystem.bootstrap { label in
      if journal { return JournalLogHandler(label: label, level: level) }
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    do {
      var command = try Stressmon.parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch let failure as CLIFailure {
      CLIOutput.error(failure.message)
      exit(failure.code)
    } catch let exitCode as ExitCode {
      exit(exitCode.rawValue)
    } catch {
      let code = Stressmon.exitCode(for: error)
      if code == .success {
        Stressmon.exit(withError: error)  // --help, --version: printed to stdout
      }
      let message = Stressmon.message(for: error)
      if message.isEmpty {
        CLIOutput.error("unexpected error: \(error)")
        exit(70)
      }
      CLIOutput.error("\(message) (see 'stressmon help')")
      exit(code.rawValue)
    }
  }
}

enum LogSetup {
  /// STRESSMON_LOG=trace|debug|info|notice|warning|error|critical; default notice so the CLI stays quiet.
  static func levelFromEnvironment() -> Logger.Level {
    guard let raw = getenv("STRESSMON_LOG") else { return .notice }
    return Logger.Level(rawValue: String(cString: raw)) ?? .notice
  }
}
