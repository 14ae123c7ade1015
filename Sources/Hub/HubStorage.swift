import SyncWire

/// Where the hub keeps measurements and device tokens. `SQLiteHubStorage` for one machine (a Pi or a laptop),
/// `PostgresHubStorage` for a fleet, where several stateless hub instances share one database.
///
/// Every implementation keeps the same rules: rows are keyed by `id`; of two versions the newer `modifiedAt`
/// wins (on a tie the incoming one, when it differs); a row id belongs to the device that first stored it;
/// every change gets a new, larger feed sequence number.
public protocol HubStorage: Sendable {
  /// "sqlite" or "postgresql", for `/healthz` and logs.
  var kind: String { get }

  /// Creates or upgrades the schema. Idempotent; safe to call from several instances at once.
  func migrate() async throws

  /// Stores already-validated rows of `deviceId` in one transaction. Returns the ids that were not stored
  /// because another device owns them; every other row is stored or already held in a newer version.
  func upsert(deviceId: String, records: [MeasurementRecord]) async throws -> Set<String>

  /// The device's newest row by `windowEnd`.
  func latest(deviceId: String) async throws -> MeasurementRecord?

  /// Rows changed after sequence number `after`, oldest change first, at most `limit`, optionally of one device.
  func feed(deviceId: String?, after: Int64, limit: Int) async throws -> FeedSlice

  /// The device a token hash belongs to.
  func device(forTokenHash hash: String) async throws -> String?

  /// Records a new token hash for a device.
  func addToken(hash: String, deviceId: String, createdAt: Double) async throws

  /// How many rows are stored (of one device, or all): tests and the benchmark read it.
  func count(deviceId: String?) async throws -> Int

  /// Checks the database answers (for `/healthz`).
  func ping() async throws

  /// Releases connections. Call once at shutdown.
  func close() async throws
}

/// A page of the feed as the storage sees it: rows with their sequence numbers.
public struct FeedSlice: Sendable {
  public var rows: [MeasurementRecord]
  /// The sequence number of the last row returned (or `after` when none).
  public var lastSequence: Int64
  public var hasMore: Bool

  public init(rows: [MeasurementRecord], lastSequence: Int64, hasMore: Bool) {
    self.rows = rows
    self.lastSequence = lastSequence
    self.hasMore = hasMore
  }
}

/// A storage failure, with what to do about it.
public struct HubStorageError: Error, CustomStringConvertible, Sendable {
  public var message: String

  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}

/// The stored form of a row: its JSON (the one `MeasurementRecord` definition). Keys are not sorted (sorting
/// doubles the encoding cost, the largest share of ingest CPU), so equal rows may have different text: storages
/// compare rows decoded (SQLite) or as jsonb (PostgreSQL), never as text.
enum StoredPayload {
  static func encode(_ records: [MeasurementRecord]) throws -> [String] {
    let encoder = JSONEncoder()
    return try records.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
  }

  static func decode(_ text: String) throws -> MeasurementRecord {
    try JSONDecoder().decode(MeasurementRecord.self, from: Data(text.utf8))
  }
}

import Foundation
