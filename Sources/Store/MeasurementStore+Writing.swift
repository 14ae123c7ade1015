import SQLite
import SyncWire

// MARK: - Public writing API

extension MeasurementStore {
  /// Writes a batch in one short transaction: the clock observation first (so rows of this batch are placed with
  /// the newest knowledge), then the measurements (upserted by id: a newer `modifiedAt` wins, an older or equal
  /// one is ignored, so a retried batch never duplicates), then the IBIs.
  ///
  /// All or nothing: on any error nothing of the batch is stored and the caller may retry it as a whole.
  public func write(
    _ records: [MeasurementRecord], ibis: [IBIRecord] = [], clock reading: ClockReading? = nil
  ) throws(StoreError) {
    for record in records {
      guard !record.id.isEmpty, record.windowEnd.isFinite, record.windowStart.isFinite,
        record.monotonicEnd.isFinite, record.modifiedAt.isFinite
      else { throw .invalid("measurement '\(record.id)' has an empty id or a non-finite time; not stored") }
    }
    for ibi in ibis where !(ibi.wall.isFinite && ibi.monotonic.isFinite && ibi.ibiMs.isFinite) {
      throw .invalid("an IBI at monotonic \(ibi.monotonic) s has a non-finite value; batch not stored")
    }
    try locked { core in
      try core.writeTransaction {
        if let reading { try core.observe(reading) }
        for record in records { try core.insert(record) }
        for ibi in ibis { try core.insert(ibi) }
      }
    }
  }

  /// Tells the store what the clocks say now. When the wall clock is synchronised, the current boot gets its
  /// anchor and its waiting rows are corrected; rows of ended boots that never synchronised become unresolved.
  /// Cheap when nothing changes; the writer calls it at every flush.
  public func observeClock(_ reading: ClockReading) throws(StoreError) {
    try locked { core in
      try core.writeTransaction { try core.observe(reading) }
    }
  }
}

// MARK: - Clock placement and inserts (under the store's lock, inside a transaction)

extension StoreCore {
  /// How stale a boot's anchor may get before a newer synchronised reading replaces it (seconds of monotonic
  /// time). Corrections extrapolate from the anchor with the board's oscillator (tens of ppm: 0.1 s per hour),
  /// so a fresh anchor keeps long unsynchronised stretches within a fraction of a second.
  static let anchorRefreshSeconds = 3_600.0

  /// A write transaction whose failure also forgets the caches it may have filled (boot rows, anchors), since
  /// the rows behind them were rolled back.
  func writeTransaction<T>(_ body: () throws -> T) throws -> T {
    do {
      return try connection.transaction(body)
    } catch {
      bootRows.removeAll()
      anchors.removeAll()
      resolvedEndedBoots = false
      throw error
    }
  }

  func observe(_ reading: ClockReading) throws {
    currentBootId = reading.bootId
    let boot = try bootRow(for: reading.bootId, wall: reading.wall)
    if reading.synchronised {
      try refreshAnchor(boot: boot, bootId: reading.bootId, wall: reading.wall, monotonic: reading.monotonic)
    }
    if !resolvedEndedBoots {
      // Boots that ended without an anchor can never be corrected: their waiting rows become unresolved.
      var counts: [Int] = []
      for table in ["measurements", "ibis"] {
        try connection.cached("UPDATE \(table) SET clock_state = 3 WHERE clock_state = 2 AND boot != ?1")
          .run([.integer(boot)])
        counts.append(connection.changes)
      }
      if counts.contains(where: { $0 > 0 }) {
        MeasurementStore.logger.warning(
          "rows of earlier boots never got a synchronised clock: kept locally, not uploaded",
          metadata: ["measurements": "\(counts[0])", "ibis": "\(counts[1])"])
      }
      resolvedEndedBoots = true
    }
  }

  func insert(_ record: MeasurementRecord) throws {
    let boot = try bootRow(for: record.bootId, wall: record.windowEnd)
    if record.clockSynchronised {
      try refreshAnchor(boot: boot, bootId: record.bootId, wall: record.windowEnd, monotonic: record.monotonicEnd)
    }
    let (state, windowEnd) = try place(
      boot: boot, bootId: record.bootId, synchronised: record.clockSynchronised, wall: record.windowEnd,
      monotonic: record.monotonicEnd)
    let windowStart = windowEnd - (record.windowEnd - record.windowStart)
    let statement = try connection.cached(
      """
      INSERT INTO measurements (id, device_id, window_start, window_end, boot, monotonic_end, clock_state,
        recorded_window_end, stress_level, category, confidence, sdnn_ms, rmssd_ms, heart_rate_bpm, baseline_hrv_ms,
        resting_heart_rate_bpm, baseline_personal, quality, beats, rejected_beats, modified_at, needs_upload)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, 1)
      ON CONFLICT(id) DO UPDATE SET
        device_id = excluded.device_id, window_start = excluded.window_start, window_end = excluded.window_end,
        boot = excluded.boot, monotonic_end = excluded.monotonic_end, clock_state = excluded.clock_state,
        recorded_window_end = excluded.recorded_window_end, stress_level = excluded.stress_level,
        category = excluded.category, confidence = excluded.confidence, sdnn_ms = excluded.sdnn_ms,
        rmssd_ms = excluded.rmssd_ms, heart_rate_bpm = excluded.heart_rate_bpm,
        baseline_hrv_ms = excluded.baseline_hrv_ms, resting_heart_rate_bpm = excluded.resting_heart_rate_bpm,
        baseline_personal = excluded.baseline_personal, quality = excluded.quality, beats = excluded.beats,
        rejected_beats = excluded.rejected_beats, modified_at = excluded.modified_at, needs_upload = 1,
        quarantine_reason = NULL, quarantined_at = NULL
      WHERE excluded.modified_at > measurements.modified_at
      """)
    try statement.run([
      .text(record.id), .text(record.deviceId), .real(windowStart), .real(windowEnd), .integer(boot),
      .real(record.monotonicEnd), .int(state.rawValue), .real(record.windowEnd), .optional(record.stressLevel),
      .optional(record.category?.rawValue), .real(record.confidence), .optional(record.sdnnMs),
      .optional(record.rmssdMs), .optional(record.heartRateBpm), .real(record.baselineHrvMs),
      .real(record.restingHeartRateBpm), .bool(record.baselinePersonal), .text(record.quality.rawValue),
      .int(record.beats), .int(record.rejectedBeats), .real(record.modifiedAt),
    ])
  }

  func insert(_ ibi: IBIRecord) throws {
    let boot = try bootRow(for: ibi.bootId, wall: ibi.wall)
    let (state, wall) = try place(
      boot: boot, bootId: ibi.bootId, synchronised: ibi.clockSynchronised, wall: ibi.wall, monotonic: ibi.monotonic)
    try connection.cached(
      "INSERT INTO ibis (boot, monotonic, wall, ibi_ms, segment, clock_state) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    ).run([.integer(boot), .real(ibi.monotonic), .real(wall), .real(ibi.ibiMs), .int(ibi.segment), .int(state.rawValue)])
  }

  // MARK: - Private

  /// The clock state and wall time a new row gets.
  private func place(
    boot: Int64, bootId: String, synchronised: Bool, wall: Double, monotonic: Double
  ) throws -> (ClockState, Double) {
    if synchronised { return (.synchronised, wall) }
    if let anchor = try anchor(boot: boot) { return (.corrected, anchor.wall(atMonotonic: monotonic)) }
    if let currentBootId, currentBootId != bootId { return (.unresolved, wall) }
    return (.waiting, wall)
  }

  /// Sets the boot's anchor when it has none (and corrects its waiting rows), or moves a stale one forward.
  private func refreshAnchor(boot: Int64, bootId: String, wall: Double, monotonic: Double) throws {
    let existing = try anchor(boot: boot)
    if let existing, monotonic - existing.monotonic < Self.anchorRefreshSeconds { return }
    try connection.cached("UPDATE boots SET sync_wall = ?1, sync_monotonic = ?2 WHERE id = ?3")
      .run([.real(wall), .real(monotonic), .integer(boot)])
    anchors[boot] = ClockAnchor(wall: wall, monotonic: monotonic)
    guard existing == nil else { return }
    // First anchor of this boot: every row measured before it (waiting, or marked unresolved by a process that
    // did not know this boot was still running) gets its wall time from the monotonic clock.
    try connection.cached(
      """
      UPDATE measurements SET
        window_end = ?1 - (?2 - monotonic_end),
        window_start = ?1 - (?2 - monotonic_end) - (window_end - window_start),
        clock_state = 1, modified_at = ?1, needs_upload = 1
      WHERE boot = ?3 AND clock_state >= 2
      """
    ).run([.real(wall), .real(monotonic), .integer(boot)])
    let measurements = connection.changes
    try connection.cached(
      "UPDATE ibis SET wall = ?1 - (?2 - monotonic), clock_state = 1 WHERE boot = ?3 AND clock_state >= 2"
    ).run([.real(wall), .real(monotonic), .integer(boot)])
    let ibis = connection.changes
    if measurements + ibis > 0 {
      MeasurementStore.logger.notice(
        "clock synchronised: corrected earlier rows of this boot from the monotonic clock",
        metadata: ["boot": "\(bootId)", "measurements": "\(measurements)", "ibis": "\(ibis)"])
    }
  }

  private func anchor(boot: Int64) throws -> ClockAnchor? {
    if let cached = anchors[boot] { return cached }
    let rows = try connection.cached("SELECT sync_wall, sync_monotonic FROM boots WHERE id = ?1").rows([.integer(boot)]) {
      statement -> ClockAnchor? in
      guard let wall = statement.optionalDouble(0), let monotonic = statement.optionalDouble(1) else { return nil }
      return ClockAnchor(wall: wall, monotonic: monotonic)
    }
    let anchor = rows.first ?? nil
    anchors[boot] = .some(anchor)
    return anchor
  }

  func bootRow(for bootId: String, wall: Double) throws -> Int64 {
    if let row = bootRows[bootId] { return row }
    try connection.cached("INSERT OR IGNORE INTO boots (boot_id, first_seen_wall) VALUES (?1, ?2)")
      .run([.text(bootId), .real(wall)])
    let rows = try connection.cached("SELECT id FROM boots WHERE boot_id = ?1").rows([.text(bootId)]) { $0.int64(0) }
    guard let row = rows.first else {
      throw SQLiteError(extendedCode: 1, message: "boot row vanished", operation: "boot lookup")
    }
    bootRows[bootId] = row
    return row
  }
}
