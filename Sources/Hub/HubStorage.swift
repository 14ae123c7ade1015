import Foundation
import SyncWire

/// Where the hub keeps measurements, devices and tokens. `SQLiteHubStorage` for one machine (a Pi or a laptop),
/// `PostgresHubStorage` for a fleet, where several stateless hub instances share one database.
///
/// Every implementation keeps the same rules: rows are keyed by `id`; of two versions the newer `modifiedAt`
/// wins (on a tie the incoming one, when it differs); a row id belongs to the device that first stored it;
/// every change gets a new feed sequence number larger than any handed out before, even after rows are deleted;
/// a batch is acknowledged only once it is durable (one commit per batch).
public protocol HubStorage: Sendable {
  /// "sqlite" or "postgresql", for `/healthz` and logs.
  var kind: String { get }

  /// Creates or upgrades the schema. Idempotent; safe to call from several instances at once.
  func migrate() async throws

  /// Stores already-validated rows of `deviceId` in one transaction and records the upload (when, and the
  /// device's reported outbox backlog) for the fleet page. Says which rows were not stored and why.
  /// `outboxQuarantined`: the rows the device holds in quarantine (refused earlier), when it says.
  func upsert(
    deviceId: String, records: [MeasurementRecord], receivedAt: Double, outboxPending: Int?, outboxQuarantined: Int?
  ) async throws -> UpsertOutcome

  /// The device's newest row by `windowEnd`, ignoring rows that end after `notAfter` (a row from a clock set
  /// ahead would otherwise stay "latest" and never go stale).
  func latest(deviceId: String, notAfter: Double) async throws -> MeasurementRecord?

  /// Rows changed after sequence number `after`, oldest change first, at most `limit`, optionally of one device,
  /// as the JSON the hub stored (so a feed page is served without decoding and encoding every row).
  func feedPayloads(deviceId: String?, after: Int64, limit: Int) async throws -> RawFeedSlice

  /// The device's rows whose window ends in `windowEnd` (a day view), oldest first.
  func rows(deviceId: String, windowEnd: Range<Double>) async throws -> [MeasurementRecord]

  /// Every device the hub knows (it has a token or has uploaded), with its newest row up to `notAfter`.
  func devices(notAfter: Double) async throws -> [DeviceSummary]

  // Pages and gauges (HubStorage+Pages.swift): each reads a bounded number of rows, however large the fleet or day.

  /// One page of the fleet, sorted, with the fleet's totals.
  func devicePage(_ request: DevicePageRequest) async throws -> DevicePage

  /// For each device, the newest window of each of `buckets`' time slots (a sparkline, a week at a glance).
  func trends(deviceIds: [String], buckets: TrendBuckets) async throws -> [String: [TrendPoint]]

  /// At most `limit` rows (stored JSON) of a device whose window ends in `windowEnd`, oldest first from `offset`,
  /// and how many there are in all.
  func dayPayloads(deviceId: String, windowEnd: Range<Double>, offset: Int, limit: Int) async throws -> DayPayloads

  /// The first `limit` devices by id with their newest window's figures and backlog (the `/metrics` gauges).
  func deviceStates(limit: Int) async throws -> DeviceStates

  /// Deletes a device's rows, tokens and upload record (a person who leaves). Feed numbers are not reused.
  func deleteDevice(_ deviceId: String) async throws -> DeviceDeletion

  /// What the token with this SHA-256 grants, if it exists.
  func credential(forTokenHash hash: String) async throws -> Credential?

  /// Records a new token (its hash only). A device token also makes the device known to the fleet page.
  func addToken(_ token: StoredToken) async throws

  /// Every token, without hashes, oldest first.
  func tokens() async throws -> [TokenInfo]

  /// Deletes the token with this id; false if there was none.
  func revokeToken(id: String) async throws -> Bool

  /// Records that a token was used (the hub calls this at most once a minute per token).
  func touchToken(id: String, at: Double) async throws

  /// How many rows are stored (of one device, or all): tests and the benchmark read it.
  func count(deviceId: String?) async throws -> Int

  /// Checks the database answers (for `/healthz`).
  func ping() async throws

  /// Releases connections and threads. Call once at shutdown.
  func close() async throws
}

extension HubStorage {
  /// An upload from a device that does not report its quarantine.
  public func upsert(deviceId: String, records: [MeasurementRecord], receivedAt: Double, outboxPending: Int?)
    async throws -> UpsertOutcome
  {
    try await upsert(
      deviceId: deviceId, records: records, receivedAt: receivedAt, outboxPending: outboxPending,
      outboxQuarantined: nil)
  }

  /// A feed page with its rows decoded (tests and tools; the route serves `feedPayloads` as they are).
  public func feed(deviceId: String?, after: Int64, limit: Int) async throws -> FeedSlice<MeasurementRecord> {
    let raw = try await feedPayloads(deviceId: deviceId, after: after, limit: limit)
    return FeedSlice(
      rows: try raw.rows.map { try StoredPayload.decode($0) }, lastSequence: raw.lastSequence, hasMore: raw.hasMore)
  }
}

// MARK: - Values

/// What happened to the rows of one upsert that were not stored.
public struct UpsertOutcome: Sendable, Equatable {
  /// Ids another device owns: not stored.
  public var foreign: Set<String>
  /// Ids of which the hub holds a newer version, with that version's `modifiedAt`: not stored.
  public var keptNewer: [String: Double]

  public init(foreign: Set<String> = [], keptNewer: [String: Double] = [:]) {
    self.foreign = foreign
    self.keptNewer = keptNewer
  }
}

/// A page of the feed: rows (their stored JSON, or decoded) with the sequence number of the last one.
public struct FeedSlice<Row: Sendable>: Sendable {
  public var rows: [Row]
  /// The sequence number of the last row returned (or `after` when none).
  public var lastSequence: Int64
  public var hasMore: Bool

  public init(rows: [Row], lastSequence: Int64, hasMore: Bool) {
    self.rows = rows
    self.lastSequence = lastSequence
    self.hasMore = hasMore
  }
}

/// A feed page as the storage holds it: each row's JSON.
public typealias RawFeedSlice = FeedSlice<String>

/// One device on the fleet page.
public struct DeviceSummary: Sendable, Equatable {
  public var deviceId: String
  /// When the hub first heard of it (token created or first upload).
  public var firstSeenAt: Double
  /// When it last uploaded a batch; nil if never.
  public var lastUploadAt: Double?
  /// Rows waiting on the device after its last batch, if it said.
  public var outboxPending: Int?
  /// Rows the device holds in quarantine (the hub or a proxy refused them), if it said.
  public var outboxQuarantined: Int?
  public var latest: MeasurementRecord?

  public init(
    deviceId: String, firstSeenAt: Double, lastUploadAt: Double?, outboxPending: Int?,
    outboxQuarantined: Int? = nil, latest: MeasurementRecord?
  ) {
    self.deviceId = deviceId
    self.firstSeenAt = firstSeenAt
    self.lastUploadAt = lastUploadAt
    self.outboxPending = outboxPending
    self.outboxQuarantined = outboxQuarantined
    self.latest = latest
  }
}

/// What `deleteDevice` removed.
public struct DeviceDeletion: Sendable, Equatable, Codable {
  public var rows: Int
  public var tokens: Int
  /// Whether the hub knew the device at all.
  public var known: Bool

  public init(rows: Int, tokens: Int, known: Bool) {
    self.rows = rows
    self.tokens = tokens
    self.known = known
  }
}

/// A storage failure, with what to do about it.
public struct HubStorageError: Error, CustomStringConvertible, Sendable {
  public var message: String
  /// The database does not exist (and the command was not one that creates it).
  public var missing: Bool

  public init(_ message: String, missing: Bool = false) {
    self.message = message
    self.missing = missing
  }

  public var description: String { message }
}
