import Synchronization
import SyncWire

/// An outbox in memory: for tests and for embedding the client where rows already live elsewhere.
public final class MemoryOutbox: SyncOutbox {
  private let state = Mutex(OutboxState())

  public init(records: [MeasurementRecord] = []) {
    add(records)
  }

  /// Queues rows for upload (a row with an existing id replaces it and is pending again).
  public func add(_ records: [MeasurementRecord]) {
    state.withLock { state in records.forEach { state.add($0) } }
  }

  public func pendingUploads(limit: Int) throws -> [MeasurementRecord] {
    state.withLock { $0.pending(limit: limit) }
  }

  public func markUploaded(ids: [String], at: Double) throws {
    state.withLock { $0.markUploaded(ids, at: at) }
  }

  public func quarantine(id: String, reason: String, at: Double) throws {
    state.withLock { $0.quarantine(QuarantinedRow(id: id, reason: reason, at: at)) }
  }

  public func quarantined() throws -> [QuarantinedRow] {
    state.withLock { $0.quarantined }
  }

  @discardableResult
  public func releaseQuarantine(ids: [String]) throws -> Int {
    state.withLock { $0.release(ids) }
  }

  public func outboxStatus() throws -> OutboxStatus {
    state.withLock { $0.status }
  }
}
