/// What can go wrong with a board or config file. Every case names the file and, where there is one, the line,
/// and says what to do. The CLI maps them to sysexits: 66 (no such file or board), 65 (the file is wrong).
public enum ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
  case notFound(path: String)
  case unreadable(path: String, reason: String)
  /// The text is not valid in the TOML subset we read.
  case syntax(path: String, line: Int, message: String)
  /// The text parses but a value is wrong: unknown key, wrong type, out of range, unknown name.
  case invalid(path: String, line: Int, message: String)
  /// A required key or section is absent.
  case missing(path: String, section: String, key: String, hint: String)
  /// `--board NAME` matched no file in the board directories.
  case unknownBoard(name: String, searched: [String], available: [String])

  public var description: String {
    switch self {
    case .notFound(let path):
      return "\(path): no such file; check the path"
    case .unreadable(let path, let reason):
      return "\(path): \(reason); check the file's permissions"
    case .syntax(let path, let line, let message):
      return "\(path):\(line): \(message)"
    case .invalid(let path, let line, let message):
      return "\(path):\(line): \(message)"
    case .missing(let path, let section, let key, let hint):
      return "\(path): section [\(section)] needs '\(key)'; \(hint)"
    case .unknownBoard(let name, let searched, let available):
      let list = available.isEmpty ? "none found" : available.joined(separator: ", ")
      let dirs = searched.isEmpty ? "no board directory found" : "searched " + searched.joined(separator: ", ")
      return "no board named '\(name)' (known boards: \(list); \(dirs)); pass --board with one of those names "
        + "or the path of a .toml board file"
    }
  }

  /// sysexits code: 66 when the input is missing, 65 when it is malformed.
  public var sysexitCode: Int32 {
    switch self {
    case .notFound, .unreadable, .unknownBoard: 66
    case .syntax, .invalid, .missing: 65
    }
  }

  /// The file the error is about, if any.
  public var path: String? {
    switch self {
    case .notFound(let path), .unreadable(let path, _), .syntax(let path, _, _), .invalid(let path, _, _),
      .missing(let path, _, _, _):
      path
    case .unknownBoard: nil
    }
  }
}
