/// A failure the user can act on, in either executable (`stressmon`, `stressmon-hub`): one line on stderr that
/// says what is wrong and what to do next, and a sysexits(3) code.
public struct CLIFailure: Error, Sendable, CustomStringConvertible {
  /// The process's exit status (sysexits: 64 usage … 74 I/O).
  public var code: Int32
  /// One line, without the program's name (the entry point adds it).
  public var message: String

  public init(code: Int32, message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { message }

  /// 64: the command line (or a setting) is wrong.
  public static func usage(_ message: String) -> CLIFailure { CLIFailure(code: 64, message: message) }
  /// 65: the input is malformed.
  public static func badData(_ message: String) -> CLIFailure { CLIFailure(code: 65, message: message) }
  /// 66: an input file does not exist or cannot be read.
  public static func noInput(_ message: String) -> CLIFailure { CLIFailure(code: 66, message: message) }
  /// 69: a service or device needed is not there (a hub, a sensor, a database server, a port).
  public static func unavailable(_ message: String) -> CLIFailure { CLIFailure(code: 69, message: message) }
  /// 70: a bug: the program got into a state it should not.
  public static func internalError(_ message: String) -> CLIFailure { CLIFailure(code: 70, message: message) }
  /// 73: an output file cannot be created.
  public static func cannotCreate(_ message: String) -> CLIFailure { CLIFailure(code: 73, message: message) }
  /// 74: reading or writing failed on the way.
  public static func ioError(_ message: String) -> CLIFailure { CLIFailure(code: 74, message: message) }
}
