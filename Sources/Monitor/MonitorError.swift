/// Why `stressmon run` cannot start or go on. Each case says what to do; `sysexitCode` follows sysexits.
public enum MonitorError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A setting that cannot work (64).
  case usage(String)
  /// A file that is wrong (65) or missing (66).
  case badFile(String, code: Int32)
  /// The sensor, the GPIO chip or the panel cannot be opened (69), or a recording cannot be read (65/66).
  case unavailable(String, code: Int32)
  /// An output file or directory cannot be created (73).
  case cannotCreate(String)

  public var description: String {
    switch self {
    case .usage(let text), .badFile(let text, _), .unavailable(let text, _), .cannotCreate(let text): text
    }
  }

  public var sysexitCode: Int32 {
    switch self {
    case .usage: 64
    case .badFile(_, let code), .unavailable(_, let code): code
    case .cannotCreate: 73
    }
  }
}
