import CommandSupport
import Foundation
import Logging

/// How the hub writes its log lines on stderr.
public enum HubLogFormat: String, Sendable, CaseIterable {
  /// `ts=… level=info msg=request request_id=… status=200`: for people and for journald.
  case logfmt
  /// One JSON object per line: for log shippers (Loki, Elasticsearch, CloudWatch).
  case json
}

/// A swift-log handler writing one line per event in logfmt or JSON: timestamp (UTC, milliseconds), level,
/// logger label, message, then the metadata sorted by key. Hummingbird's `hb.request.id` is written as
/// `request_id`. Values never break the line: newlines and quotes are escaped.
public struct HubLogHandler: LogHandler {
  public var logLevel: Logger.Level
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?
  private let label: String
  private let format: HubLogFormat
  private let write: @Sendable (String) -> Void

  /// `write` gets each line with its newline; the default writes it to stderr in one `write(2)`.
  public init(
    label: String, format: HubLogFormat, level: Logger.Level,
    write: @escaping @Sendable (String) -> Void = HubLogHandler.standardError
  ) {
    self.label = label
    self.format = format
    self.logLevel = level
    self.write = write
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    var merged = metadata
    if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
    if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
    if let error = event.error { merged["error"] = "\(error)" }
    var fields: [(String, String)] = [
      ("ts", Self.timestamp(Date())), ("level", event.level.rawValue), ("logger", label),
      ("msg", event.message.description),
    ]
    for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
      fields.append((key == "hb.request.id" ? "request_id" : key, value.description))
    }
    write(Self.line(fields, format: format))
  }

  /// One formatted line, newline included.
  public static func line(_ fields: [(String, String)], format: HubLogFormat) -> String {
    switch format {
    case .logfmt:
      return fields.map { "\($0.0)=\(logfmtValue($0.1))" }.joined(separator: " ") + "\n"
    case .json:
      let members = fields.map { JSONString.literal($0.0) + ":" + JSONString.literal($0.1) }
      return "{" + members.joined(separator: ",") + "}\n"
    }
  }

  @Sendable public static func standardError(_ line: String) {
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { Foundation.write(2, $0.baseAddress, $0.count) }
  }

  // MARK: - Private

  /// Bare when it is a plain word; else a quoted string with JSON's escapes.
  private static func logfmtValue(_ value: String) -> String {
    let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "=" && $0 != "\\" }
    return plain ? value : JSONString.literal(value)
  }

  /// `2026-11-24T04:30:00.123Z`.
  static func timestamp(_ date: Date) -> String {
    let interval = date.timeIntervalSince1970
    var seconds = time_t(interval.rounded(.down))
    let milliseconds = Int((interval - Double(seconds)) * 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ value: Int32, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
      + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds), 3))Z"
  }
}
