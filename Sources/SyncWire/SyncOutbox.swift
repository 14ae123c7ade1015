/// What the sync client drains: the device's outbox. The SQLite store (`Store.MeasurementStore`) implements it
/// on the device; tests and `stressmon sync --outbox` use `MemoryOutbox` and `FileOutbox` from `Sync`. It lives
/// here, beside the wire types, so the store conforms without depending on the HTTP client.
///
/// Contract: `pendingUploads` returns rows in the order they were written (oldest first) and only rows whose
/// wall clock was synchronised; rows passed to `markUploaded` or `quarantine` never come back from it.
/// Implementations must be safe to call from any task (the client calls them from its own).
public protocol SyncOutbox: Sendable {
  /// Up to `limit` rows waiting for upload, oldest first; only clock-synchronised rows.
  func pendingUploads(limit: Int) throws -> [MeasurementRecord]
  /// The hub holds these rows (stored, or a newer version of them): they leave the outbox.
  func markUploaded(ids: [String], at: Double) throws
  /// The hub refused this row for good: keep it aside with the reason, never upload it again by itself.
  func quarantine(id: String, reason: String, at: Double) throws
  /// Every quarantined row, for `stressmon sync --status`.
  func quarantined() throws -> [QuarantinedRow]
  /// Puts these quarantined rows back in the outbox (`stressmon sync --requeue`, once the cause is fixed).
  /// Ids that are not quarantined are ignored; returns how many rows were released.
  @discardableResult
  func releaseQuarantine(ids: [String]) throws -> Int
  /// Counts for `stressmon sync --status` and the daemon's health line.
  func outboxStatus() throws -> OutboxStatus
}

/// A row the hub refused, with the hub's reason and when (seconds since the Unix epoch).
public struct QuarantinedRow: Sendable, Equatable, Codable {
  public var id: String
  public var reason: String
  public var at: Double

  public init(id: String, reason: String, at: Double) {
    self.id = id
    self.reason = reason
    self.at = at
  }
}

/// How many rows wait, and for what.
public struct OutboxStatus: Sendable, Equatable, Codable {
  /// Clock-synchronised rows waiting for upload.
  public var pending: Int
  /// Rows measured before the wall clock was synchronised: uploaded once their times are corrected.
  public var waitingForClock: Int
  public var quarantined: Int
  /// When the hub last acknowledged a row (seconds since the Unix epoch); nil if never.
  public var lastUploadAt: Double?
  /// Rows never uploaded that were deleted because the disk was full (the device store counts them; 0 elsewhere).
  public var droppedForSpace: Int

  public init(pending: Int, waitingForClock: Int, quarantined: Int, lastUploadAt: Double?, droppedForSpace: Int = 0) {
    self.pending = pending
    self.waitingForClock = waitingForClock
    self.quarantined = quarantined
    self.lastUploadAt = lastUploadAt
    self.droppedForSpace = droppedForSpace
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    pending = try container.decode(Int.self, forKey: .pending)
    waitingForClock = try container.decode(Int.self, forKey: .waitingForClock)
    quarantined = try container.decode(Int.self, forKey: .quarantined)
    lastUploadAt = try container.decodeIfPresent(Double.self, forKey: .lastUploadAt)
    droppedForSpace = try container.decodeIfPresent(Int.self, forKey: .droppedForSpace) ?? 0
  }

  enum CodingKeys: String, CodingKey {
    case pending, quarantined
    case waitingForClock = "waiting_for_clock"
    case lastUploadAt = "last_upload_at"
    case droppedForSpace = "dropped_for_space"
  }
}
