import SyncWire

/// The bookkeeping both bundled outboxes share: rows in insertion order, which are done, which quarantined.
/// A plain value; `MemoryOutbox` and `FileOutbox` guard it with a mutex.
struct OutboxState: Sendable {
  private(set) var order: [String] = []
  private(set) var rows: [String: MeasurementRecord] = [:]
  private(set) var uploaded: Set<String> = []
  private(set) var quarantine: [String: QuarantinedRow] = [:]
  private(set) var lastUploadAt: Double?

  /// Adds or replaces a row. A replaced row that had been uploaded is pending again (it changed since).
  mutating func add(_ record: MeasurementRecord) {
    if rows[record.id] == nil { order.append(record.id) }
    rows[record.id] = record
    uploaded.remove(record.id)
  }

  mutating func markUploaded(_ ids: [String], at: Double) {
    for id in ids where rows[id] != nil { uploaded.insert(id) }
    lastUploadAt = max(lastUploadAt ?? at, at)
  }

  mutating func quarantine(_ row: QuarantinedRow) {
    quarantine[row.id] = row
  }

  mutating func release(_ ids: [String]) -> Int {
    ids.reduce(0) { released, id in released + (quarantine.removeValue(forKey: id) == nil ? 0 : 1) }
  }

  func isPending(_ id: String) -> Bool {
    !uploaded.contains(id) && quarantine[id] == nil
  }

  func pending(limit: Int) -> [MeasurementRecord] {
    var result: [MeasurementRecord] = []
    for id in order where result.count < limit && isPending(id) {
      if let row = rows[id], row.clockSynchronised { result.append(row) }
    }
    return result
  }

  var quarantined: [QuarantinedRow] {
    quarantine.values.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
  }

  var status: OutboxStatus {
    var pending = 0
    var waiting = 0
    for (id, row) in rows where isPending(id) {
      if row.clockSynchronised { pending += 1 } else { waiting += 1 }
    }
    return OutboxStatus(pending: pending, waitingForClock: waiting, quarantined: quarantine.count, lastUploadAt: lastUploadAt)
  }
}
