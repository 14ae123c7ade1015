import ArgumentParser
import Platform

/// The entry point both executables share: parse, run, and turn every failure into one line on stderr
/// (`program: what is wrong; what to do`) with a sysexits code. `--help` and `--version` print to stdout and
/// exit 0; a command line ArgumentParser refuses is 64 with its one-line reason.
public enum CommandMain {
  /// Parses the process's arguments as `Root`, hands the parsed command to `prepare` (logging is set up there,
  /// from the command's own options), runs it, and exits.
  public static func run<Root: ParsableCommand>(
    _ root: Root.Type, prepare: @Sendable (any ParsableCommand) throws -> Void = { _ in }
  ) async -> Never {
    let program = Root.configuration.commandName ?? "command"
    do {
      var command = try Root.parseAsRoot()
      try prepare(command)
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
      exit(0)
    } catch let failure as CLIFailure {
      error(program, failure.message)
      exit(failure.code)
    } catch let exitCode as ExitCode {
      exit(exitCode.rawValue)
    } catch {
      let code = Root.exitCode(for: error)
      if code == .success {
        Root.exit(withError: error)  // --help, --version: printed to stdout
      }
      let message = Root.message(for: error)
      if message.isEmpty {
        Self.error(program, "unexpected error: \(error)")
        exit(70)
      }
      Self.error(program, "\(firstLine(message)) (see '\(program) help')")
      exit(code.rawValue)
    }
  }

  /// Writes `program: message` as one line on stderr (a message that spans lines is joined with spaces).
  public static func error(_ program: String, _ message: String) {
    let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    try? FileDescriptor.standardError.writeAll("\(program): \(line)\n".utf8)
  }

  /// ArgumentParser's messages may go on with the usage ("Error: …\nUsage: …"): the first line, without "Error: ".
  static func firstLine(_ message: String) -> String {
    guard let first = message.split(whereSeparator: \.isNewline).first else { return message }
    return String(first.hasPrefix("Error: ") ? first.dropFirst(7) : first)
  }
}
