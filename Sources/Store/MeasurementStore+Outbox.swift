import SyncWire

/// The sync outbox: the measurement rows' sync-state columns, read and updated by the sync client.
///
/// Contract (shared with the sync client's `SyncOutbox` protocol): `pendingUploads` returns rows oldest first,
/// only rows whose wall time is known (synchronised, or corrected from the monotonic clock), never quarantined
/// ones, and never rows the hub already acknowledged unless they changed since (a newer `modifiedAt` upserted).
extension MeasurementStore {
  /// Up to `limit` rows waiting for upload, oldest window first.
  public func pendingUploads(limit: Int) throws(StoreError) -> [MeasurementRecord] {
    try locked { core in
      try core.connection.cached(
        StoreCore.measurementSelect
          + """
           WHERE m.needs_upload = 1 AND m.quarantined_at IS NULL AND m.clock_state <= 1
          ORDER BY m.window_end, m.seq LIMIT ?1
          """
      ).rows([.int(max(0, limit))]) { try StoreCore.decodeMeasurement($0, path: core.path).record }
    }
  }

  /// The hub holds these rows: they leave the outbox. Unknown ids are ignored (a row may have been retired).
  ///
  /// Safe against a row changing during the upload: the only change a stored row undergoes is the clock
  /// correction, and that applies to rows that were never pending; an upsert with a newer `modifiedAt` sets
  /// `needs_upload` again after this call, so the newer version is sent too.
  public func markUploaded(ids: [String], at: Double) throws(StoreError) {
    guard !ids.isEmpty else { return }
    try locked { core in
      try core.connection.transaction {
        let statement = try core.connection.cached(
          "UPDATE measurements SET needs_upload = 0, uploaded_at = ?2 WHERE id = ?1 AND quarantined_at IS NULL")
        for id in ids { try statement.run([.text(id), .real(at)]) }
        try core.setValue(.lastUploadAt, at)
      }
    }
  }

  /// The hub refused this row for good (4xx): kept, shown with the reason, never offered again by itself.
  public func quarantine(id: String, reason: String, at: Double) throws(StoreError) {
    try locked { core in
      try core.connection.cached(
        "UPDATE measurements SET quarantine_reason = ?2, quarantined_at = ?3 WHERE id = ?1"
      ).run([.text(id), .text(reason.isEmpty ? "refused by the hub" : reason), .real(at)])
    }
  }

  /// Every quarantined row, oldest quarantine first.
  public func quarantined() throws(StoreError) -> [QuarantinedRow] {
    try locked { core in
      try core.connection.cached(
        "SELECT id, quarantine_reason, quarantined_at FROM measurements WHERE quarantined_at IS NOT NULL "
          + "ORDER BY quarantined_at, seq"
      ).rows { QuarantinedRow(id: $0.text(0) ?? "", reason: $0.text(1) ?? "", at: $0.double(2)) }
    }
  }

  /// Puts quarantined rows back into the outbox (after the cause was fixed, e.g. the hub upgraded).
  /// Returns how many rows were released.
  @discardableResult
  public func releaseQuarantine(ids: [String]) throws(StoreError) -> Int {
    try locked { core in
      try core.connection.transaction {
        var released = 0
        let statement = try core.connection.cached(
          "UPDATE measurements SET quarantine_reason = NULL, quarantined_at = NULL, needs_upload = 1 "
            + "WHERE id = ?1 AND quarantined_at IS NOT NULL")
        for id in ids {
          try statement.run([.text(id)])
          released += core.connection.changes
        }
        return released
      }
    }
  }

  /// Counts for `stressmon sync --status` and the daemon's health line.
  public func outboxStatus() throws(StoreError) -> OutboxStatus {
    try locked { core in
      try core.connection.cached(
        """
        SELECT
          (SELECT count(*) FROM measurements WHERE needs_upload = 1 AND quarantined_at IS NULL AND clock_state <= 1),
          (SELECT count(*) FROM measurements WHERE needs_upload = 1 AND quarantined_at IS NULL AND clock_state = 2),
          (SELECT count(*) FROM measurements WHERE quarantined_at IS NOT NULL),
          (SELECT value FROM counters WHERE name = 'last_upload_at'),
          (SELECT value FROM counters WHERE name = 'dropped_unsynced_measurements')
        """
      ).rows {
        OutboxStatus(
          pending: $0.int(0), waitingForClock: $0.int(1), quarantined: $0.int(2), lastUploadAt: $0.optionalDouble(3),
          droppedForSpace: $0.int(4))
      }[0]
    }
  }
}

/// The store is the device's outbox: the sync client drains it through this protocol (declared in SyncWire).
extension MeasurementStore: SyncOutbox {}
