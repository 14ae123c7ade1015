import Logging
import Platform

/// Log lines for systemd's journal: when stderr is the journal's stream (`$JOURNAL_STREAM` names its device and
/// inode, see systemd.exec(5)), each line starts with its syslog priority in angle brackets (`<4>` for a warning,
/// sd-daemon(3)), so `journalctl -p warning -u stressmon` finds warnings and worse. The journal stamps the time
/// itself, so the line is `<N>label: message key=value …`. Elsewhere (a terminal, a pipe) the usual
/// `StreamLogHandler` lines are written.
struct JournalLogHandler: LogHandler {
  var logLevel: Logger.Level
  var metadata: Logger.Metadata = [:]
  var metadataProvider: Logger.MetadataProvider?
  let label: String

  init(label: String, level: Logger.Level) {
    self.label = label
    logLevel = level
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var merged = metadata
    if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
    if let extra = event.metadata { merged.merge(extra) { _, new in new } }
    let line = Self.line(level: event.level, label: label, message: "\(event.message)", metadata: merged)
    // One write(2) per line: lines from several threads never interleave on the stream socket.
    var bytes = Array(line.utf8)
    bytes.withUnsafeMutableBytes { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
  }

  /// `<priority>label: message key=value …` and a newline.
  static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
    var text = "<\(priority(level))>\(label): \(message)"
    for key in metadata.keys.sorted() { text += " \(key)=\(metadata[key]!)" }
    return text + "\n"
  }

  /// syslog(3) priorities, as sd-daemon(3) prefixes them: 2 critical … 7 debug.
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }

  /// Whether stderr is the journal's stream: `$JOURNAL_STREAM` is "device:inode" of it (a later redirection of
  /// stderr keeps the variable but changes the descriptor, hence the comparison).
  static func stderrIsJournal(environment value: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) })
    -> Bool
  {
    guard let value else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var status = stat()
    guard fstat(2, &status) == 0 else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
  }
}
