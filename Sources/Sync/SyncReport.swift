import SyncWire

/// What one `SyncClient.runOnce()` did.
public struct SyncReport: Sendable, Equatable {
  /// Rows the hub acknowledged (stored, or already held in this or a newer version).
  public var uploaded = 0
  /// Rows of which the hub already held a newer version (`kept_newer`): they left the outbox, but this version
  /// did not land.
  public var keptNewer = 0
  /// Rows the hub refused for good; they are in the outbox's quarantine with the reason.
  public var quarantined = 0
  /// The hub's reason for the first row quarantined in this run, for the one-line summary.
  public var firstQuarantineReason: String?
  /// HTTP requests sent, and how many of them were retries after a failure.
  public var requests = 0
  public var retries = 0
  /// The outbox after the run.
  public var status = OutboxStatus(pending: 0, waitingForClock: 0, quarantined: 0, lastUploadAt: nil)
  /// Why the run stopped before the outbox was drained; nil when every sendable row was sent.
  public var stoppedBy: SyncError?

  public init() {}

  /// Whether the run sent everything it could (rows waiting for the clock do not count against it).
  public var drained: Bool { stoppedBy == nil }
}
