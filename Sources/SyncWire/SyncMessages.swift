/// The request and response bodies of `/v1`, one definition used by the sync client and the hub.
/// JSON with snake_case keys, like `MeasurementRecord`.

// MARK: - Ingest

/// `POST /v1/measurements`: one batch of at most `SyncAPI.maxBatchRows` rows of one device.
public struct IngestRequest: Sendable, Equatable, Codable {
  public var deviceId: String
  public var records: [MeasurementRecord]
  /// Rows still waiting in the device's outbox after this batch, when the device knows: the hub's fleet page
  /// shows it. Optional, 0-`SyncAPI.maxOutboxPending`.
  public var outboxPending: Int?
  /// Rows the device holds in quarantine (refused earlier, kept for a person to look at), when the device knows:
  /// the fleet page shows it next to the backlog. Optional, 0-`SyncAPI.maxOutboxPending`.
  public var outboxQuarantined: Int?

  public init(deviceId: String, records: [MeasurementRecord], outboxPending: Int? = nil, outboxQuarantined: Int? = nil) {
    self.deviceId = deviceId
    self.records = records
    self.outboxPending = outboxPending
    self.outboxQuarantined = outboxQuarantined
  }

  enum CodingKeys: String, CodingKey {
    case records
    case deviceId = "device_id"
    case outboxPending = "outbox_pending"
    case outboxQuarantined = "outbox_quarantined"
  }
}

/// What the hub did with one row of a batch.
public struct RowResult: Sendable, Equatable, Codable {
  public enum Status: String, Sendable, Codable {
    /// Stored, or already stored in this or a newer version: the client may forget the row.
    case accepted
    /// Invalid: never stored. The client quarantines the row with `reason`.
    case rejected
    /// Valid, but the hub holds a newer version (a larger `modified_at`) and kept it: this version did not land.
    /// Resending cannot change that, so the client stops sending it and reports it; `reason` names the version kept.
    case keptNewer = "kept_newer"
  }

  public var id: String
  public var status: Status
  /// Why the row was rejected (or which version was kept), in words a person can act on; nil when accepted.
  public var reason: String?

  public init(id: String, status: Status, reason: String? = nil) {
    self.id = id
    self.status = status
    self.reason = reason
  }
}

/// The answer to an ingest request: one result per row, in request order.
public struct IngestResponse: Sendable, Equatable, Codable {
  public var results: [RowResult]

  public init(results: [RowResult]) {
    self.results = results
  }

  public var acceptedCount: Int { results.count { $0.status == .accepted } }
  public var rejectedCount: Int { results.count { $0.status == .rejected } }
  public var keptNewerCount: Int { results.count { $0.status == .keptNewer } }
}

// MARK: - Pull side

/// `GET /v1/devices/{id}/latest`: the device's newest window (by `window_end`), if any.
public struct LatestResponse: Sendable, Equatable, Codable {
  public var deviceId: String
  public var record: MeasurementRecord?
  /// The hub's clock when it answered (seconds since the Unix epoch), so a reader can judge staleness.
  public var serverTime: Double

  public init(deviceId: String, record: MeasurementRecord?, serverTime: Double) {
    self.deviceId = deviceId
    self.record = record
    self.serverTime = serverTime
  }

  enum CodingKeys: String, CodingKey {
    case record
    case deviceId = "device_id"
    case serverTime = "server_time"
  }
}

/// `GET /v1/measurements?device=…&since=CURSOR&limit=N`: rows changed after `since`, oldest change first.
/// Cursors are opaque strings; pass `nextCursor` back as `since` to continue. A row changed again later comes
/// again later, so a reader that applies rows in order by id ends with the hub's state.
public struct FeedPage: Sendable, Equatable, Codable {
  public var rows: [MeasurementRecord]
  public var nextCursor: String
  /// Whether more rows were waiting when the page was cut at `limit`.
  public var hasMore: Bool

  public init(rows: [MeasurementRecord], nextCursor: String, hasMore: Bool) {
    self.rows = rows
    self.nextCursor = nextCursor
    self.hasMore = hasMore
  }

  enum CodingKeys: String, CodingKey {
    case rows
    case nextCursor = "next_cursor"
    case hasMore = "has_more"
  }
}

/// `GET /healthz`.
public struct HealthResponse: Sendable, Equatable, Codable {
  public var status: String
  public var storage: String
  public var version: String

  public init(status: String, storage: String, version: String) {
    self.status = status
    self.storage = storage
    self.version = version
  }
}

// MARK: - Errors

/// The body of every 4xx/5xx answer: a stable machine code and a sentence saying what is wrong.
public struct ErrorBody: Sendable, Equatable, Codable, Error {
  /// Stable codes, e.g. `unauthorized`, `forbidden_device`, `payload_too_large`, `malformed_json`,
  /// `invalid_batch`, `not_found`, `internal`.
  public var error: String
  public var message: String

  public init(error: String, message: String) {
    self.error = error
    self.message = message
  }
}
