import SyncWire

/// The CSV and JSON shapes of stored measurements, shared by `stressmon history` and `stressmon export`.
/// Field names are the wire's (`MeasurementRecord`'s snake_case keys) plus the store's bookkeeping.
public enum MeasurementExport {
  // MARK: - CSV

  /// The header line's columns, in order.
  public static let csvColumns = [
    "id", "device_id", "window_start", "window_end", "boot_id", "monotonic_end", "clock_synchronised", "clock_state",
    "recorded_window_end", "stress_level", "category", "confidence", "sdnn_ms", "rmssd_ms", "heart_rate_bpm",
    "baseline_hrv_ms", "resting_heart_rate_bpm", "baseline_personal", "quality", "beats", "rejected_beats",
    "modified_at", "upload_state", "upload_detail",
  ]

  /// A CSV document (RFC 4180: comma-separated, CRLF-free `\n` lines, fields quoted when needed). Times are ISO
  /// 8601 UTC with milliseconds; missing values are empty fields.
  public static func csv(_ rows: [StoredMeasurement]) -> String {
    var text = csvColumns.joined(separator: ",") + "\n"
    for row in rows { text += csvLine(row) + "\n" }
    return text
  }

  public static func csvLine(_ row: StoredMeasurement) -> String {
    let r = row.record
    let fields: [String] = [
      r.id, r.deviceId, time(r.windowStart), time(r.windowEnd), r.bootId, number(r.monotonicEnd),
      r.clockSynchronised ? "true" : "false", row.clockState.name, time(row.recordedWindowEnd),
      number(r.stressLevel), r.category?.rawValue ?? "", number(r.confidence), number(r.sdnnMs), number(r.rmssdMs),
      number(r.heartRateBpm), number(r.baselineHrvMs), number(r.restingHeartRateBpm),
      r.baselinePersonal ? "true" : "false", r.quality.rawValue, String(r.beats), String(r.rejectedBeats),
      time(r.modifiedAt), row.upload.name, uploadDetail(row.upload),
    ]
    return fields.map(quoted).joined(separator: ",")
  }

  // MARK: - JSON

  /// One measurement as a JSON object: every `MeasurementRecord` field under its wire name (times in Unix
  /// seconds), plus `clock_state`, `recorded_window_end`, `upload_state` and the upload's time or reason.
  public struct JSONRow: Encodable, Sendable {
    public var row: StoredMeasurement

    public init(_ row: StoredMeasurement) { self.row = row }

    enum ExtraKeys: String, CodingKey {
      case clockState = "clock_state"
      case recordedWindowEnd = "recorded_window_end"
      case uploadState = "upload_state"
      case uploadedAt = "uploaded_at"
      case quarantineReason = "quarantine_reason"
      case quarantinedAt = "quarantined_at"
    }

    public func encode(to encoder: any Encoder) throws {
      try row.record.encode(to: encoder)
      var container = encoder.container(keyedBy: ExtraKeys.self)
      try container.encode(row.clockState.name, forKey: .clockState)
      try container.encode(row.recordedWindowEnd, forKey: .recordedWindowEnd)
      try container.encode(row.upload.name, forKey: .uploadState)
      switch row.upload {
      case .uploaded(let at): try container.encode(at, forKey: .uploadedAt)
      case .quarantined(let reason, let at):
        try container.encode(reason, forKey: .quarantineReason)
        try container.encode(at, forKey: .quarantinedAt)
      default: break
      }
    }
  }

  /// The document `history --json` prints and `export` writes to a .json file.
  public struct JSONDocument: Encodable, Sendable {
    public var count: Int
    public var since: Double?
    public var until: Double?
    public var measurements: [JSONRow]

    public init(_ rows: [StoredMeasurement], since: Double?, until: Double?) {
      count = rows.count
      self.since = since
      self.until = until
      measurements = rows.map(JSONRow.init)
    }
  }

  // MARK: - Private

  private static func uploadDetail(_ state: UploadState) -> String {
    switch state {
    case .uploaded(let at): time(at)
    case .quarantined(let reason, _): reason
    default: ""
    }
  }

  private static func time(_ seconds: Double) -> String { ISO8601Time.formatUTC(seconds, fractionDigits: 3) }

  private static func number(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "" }
    return "\(value)"
  }

  private static func quoted(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
    var escaped = "\""
    for character in field {
      if character == "\"" { escaped += "\"\"" } else { escaped.append(character) }
    }
    return escaped + "\""
  }
}
