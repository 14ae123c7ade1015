import CommandSupport
import Logging
import Platform

/// Entry point: sets up logging, then parses, runs, and turns every failure into one line on stderr and a
/// sysexits code (`CommandMain`, shared with stressmon-hub).
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
    await CommandMain.run(Stressmon.self)
  }
}

enum LogSetup {
  /// STRESSMON_LOG=trace|debug|info|notice|warning|error|critical; default notice so the CLI stays quiet.
  static func levelFromEnvironment() -> Logger.Level {
    guard let raw = getenv("STRESSMON_LOG") else { return .notice }
    return Logger.Level(rawValue: String(cString: raw)) ?? .notice
  }
}
