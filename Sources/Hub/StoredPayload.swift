import CommandSupport
import Foundation
import StressModel
import SyncWire

/// The stored form of a row: its JSON, the `MeasurementRecord` wire form (snake_case keys, nil fields left out),
/// which the feed serves as it is. Written here by hand rather than by `JSONEncoder`: encoding was a quarter of
/// the hub's ingest CPU, and this writer is several times faster and gives the same row the same text every time
/// (`JSONEncoder` orders keys by hash). `StoredPayloadTests` holds it to `JSONEncoder`: same keys, and every row
/// decodes back equal. Storages compare rows decoded when the text differs (PostgreSQL as jsonb), never only as text.
enum StoredPayload {
  static func encode(_ records: [MeasurementRecord]) throws -> [String] {
    try records.map(text)
  }

  static func decode(_ text: String) throws -> MeasurementRecord {
    try JSONDecoder().decode(MeasurementRecord.self, from: Data(text.utf8))
  }

  /// Whether a stored row and an incoming one are the same version: same text (the usual retry), or equal once
  /// decoded.
  static func same(stored: String, incoming: MeasurementRecord, incomingText: String) -> Bool {
    stored == incomingText || (try? decode(stored)) == incoming
  }

  /// One row's JSON object.
  static func text(_ row: MeasurementRecord) throws -> String {
    var writer = ObjectWriter()
    writer.string("id", row.id)
    writer.string("device_id", row.deviceId)
    try writer.number("window_start", row.windowStart)
    try writer.number("window_end", row.windowEnd)
    writer.string("boot_id", row.bootId)
    try writer.number("monotonic_end", row.monotonicEnd)
    writer.bool("clock_synchronised", row.clockSynchronised)
    if let level = row.stressLevel { try writer.number("stress_level", level) }
    if let category = row.category { writer.string("category", category.rawValue) }
    try writer.number("confidence", row.confidence)
    if let sdnn = row.sdnnMs { try writer.number("sdnn_ms", sdnn) }
    if let rmssd = row.rmssdMs { try writer.number("rmssd_ms", rmssd) }
    if let heartRate = row.heartRateBpm { try writer.number("heart_rate_bpm", heartRate) }
    try writer.number("baseline_hrv_ms", row.baselineHrvMs)
    try writer.number("resting_heart_rate_bpm", row.restingHeartRateBpm)
    writer.bool("baseline_personal", row.baselinePersonal)
    writer.string("quality", row.quality.rawValue)
    writer.integer("beats", row.beats)
    writer.integer("rejected_beats", row.rejectedBeats)
    try writer.number("modified_at", row.modifiedAt)
    return writer.finish()
  }

  /// A JSON object built key by key, as UTF-8 bytes (strings by `JSONString`; numbers as Swift's shortest
  /// round-trip text).
  private struct ObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init() {
      bytes.reserveCapacity(640)
    }

    mutating func string(_ key: String, _ value: String) {
      field(key)
      JSONString.append(value, to: &bytes)
    }

    mutating func number(_ key: String, _ value: Double) throws {
      guard value.isFinite else {
        throw EncodingError.invalidValue(
          value, .init(codingPath: [], debugDescription: "\(key) is \(value), which JSON cannot hold"))
      }
      field(key)
      bytes.append(contentsOf: value.description.utf8)
    }

    mutating func integer(_ key: String, _ value: Int) {
      field(key)
      bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ key: String, _ value: Bool) {
      field(key)
      bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func finish() -> String {
      bytes.append(UInt8(ascii: "}"))
      return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func field(_ key: String) {
      if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: key.utf8)
      bytes.append(contentsOf: Array("\":".utf8))
    }
  }
}
