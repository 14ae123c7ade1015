/// What can go wrong with a recording file. Each case says which file, which line, and what to do; the CLI maps
/// them to sysexits codes (66 no input, 65 bad data, 73 cannot create, 74 I/O).
public enum RecordingError: Error, Equatable, CustomStringConvertible {
  case notFound(path: String)
  case unreadable(path: String, reason: String)
  case isDirectory(path: String)
  case empty(path: String)
  case noHeader(path: String)
  case noSuchColumn(path: String, wanted: String, available: [String])
  case noNumericColumn(path: String, available: [String])
  case badValue(path: String, line: Int, column: String, text: String)
  case outOfRange(path: String, line: Int, column: String)
  case badSidecar(path: String, reason: String)
  case cannotCreate(path: String, reason: String)
  case writeFailed(path: String, reason: String)

  public var description: String {
    switch self {
    case .notFound(let path):
      "\(path): no such file; check the path (recordings are CSV files with a header row)"
    case .unreadable(let path, let reason):
      "\(path): \(reason); check the file's permissions"
    case .isDirectory(let path):
      "\(path) is a directory, not a recording; give the path of one CSV file in it"
    case .empty(let path):
      "\(path): the file has no samples; record at least a few seconds"
    case .noHeader(let path):
      "\(path): the first line is not a header of column names; add one, e.g. 'ppg'"
    case .noSuchColumn(let path, let wanted, let available):
      "\(path): no column '\(wanted)' (columns: \(available.joined(separator: ", "))); pick one with --column"
    case .noNumericColumn(let path, let available):
      "\(path): none of the columns \(available.joined(separator: ", ")) is 'ppg' or 'ir'; name one with --column"
    case .badValue(let path, let line, let column, let text):
      "\(path):\(line): '\(text)' in column '\(column)' is not a number; fix or delete that row"
    case .outOfRange(let path, let line, let column):
      "\(path):\(line): the value in column '\(column)' is too large for a sensor sample (beyond ±2^31)"
    case .badSidecar(let path, let reason):
      "\(path): the sidecar JSON does not parse (\(reason)); fix it, or give --rate and --polarity (or --invert) to analyse without it"
    case .cannotCreate(let path, let reason):
      "\(path): cannot create (\(reason)); check the directory exists and is writable"
    case .writeFailed(let path, let reason):
      "\(path): write failed (\(reason)); check free space"
    }
  }

  /// Whether the problem is a missing input (exit 66) rather than bad content (65) or output trouble (73/74).
  public var sysexitCode: Int32 {
    switch self {
    case .notFound, .unreadable, .isDirectory: 66
    case .empty, .noHeader, .noSuchColumn, .noNumericColumn, .badValue, .outOfRange, .badSidecar: 65
    case .cannotCreate: 73
    case .writeFailed: 74
    }
  }
}
