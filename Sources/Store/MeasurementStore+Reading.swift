import Platform
import SQLite
import StressModel
import SyncWire

// MARK: - Public reading API

extension MeasurementStore {
  /// Measurements by window end time (`since` inclusive, `until` exclusive), oldest first unless asked otherwise.
  public func measurements(_ query: MeasurementQuery = MeasurementQuery()) throws(StoreError) -> [StoredMeasurement] {
    try locked { core in try core.measurements(query) }
  }

  /// Every measurement of `query` (its `limit` and order ignored), oldest first, handed to `body` in pages of
  /// `batchSize` rows: exports of a year of windows never hold it all in memory. Each page is read under the lock
  /// on its own, so the writer is never held up for long.
  public func forEachPage(
    _ query: MeasurementQuery = MeasurementQuery(), batchSize: Int = 2_000, _ body: ([StoredMeasurement]) throws -> Void
  ) throws {
    var cursor = (windowEnd: query.since ?? -Double.infinity, seq: Int64.min)
    let until = query.until ?? .infinity
    while true {
      let page = try locked { core in
        try core.connection.cached(
          StoreCore.measurementSelect.replacingFirstSelect(with: "SELECT m.seq, ")
            + " WHERE (m.window_end, m.seq) > (?1, ?2) AND m.window_end >= ?3 AND m.window_end < ?4"
            + " ORDER BY m.window_end, m.seq LIMIT ?5"
        ).rows([
          .real(cursor.windowEnd), .integer(cursor.seq), .real(query.since ?? -.infinity), .real(until),
          .int(max(1, batchSize)),
        ]) { row in (row.int64(0), try StoreCore.decodeMeasurement(row, path: core.path, offset: 1)) }
      }
      guard let last = page.last else { return }
      cursor = (last.1.record.windowEnd, last.0)
      try body(page.map(\.1))
      if page.count < batchSize { return }
    }
  }

  /// One measurement by its UUID, or nil.
  public func measurement(id: String) throws(StoreError) -> StoredMeasurement? {
    try locked { core in
      try core.connection.cached(StoreCore.measurementSelect + " WHERE m.id = ?1").rows([.text(id)]) {
        try StoreCore.decodeMeasurement($0, path: core.path)
      }.first
    }
  }

  /// The highest row number in the measurements table (0 when empty): rows written later get higher numbers, so
  /// a writer that notes it at open can count afterwards how many of its own rows are still there.
  public func newestSequence() throws(StoreError) -> Int64 {
    try locked { core in try core.connection.scalarInt("SELECT max(seq) FROM measurements") ?? 0 }
  }

  /// Measurements numbered above `sequence` (see `newestSequence`).
  public func measurementCount(afterSequence sequence: Int64) throws(StoreError) -> Int {
    try locked { core in
      Int(try core.connection.cached("SELECT count(*) FROM measurements WHERE seq > ?1").rows([.integer(sequence)]) {
        $0.int64(0)
      }.first ?? 0)
    }
  }

  /// IBIs with wall time in [since, until), in the order they were measured. A scan: meant for offline
  /// reanalysis and export, not for the daemon's hot path.
  public func ibis(since: Double? = nil, until: Double? = nil, limit: Int? = nil) throws(StoreError) -> [StoredIBI] {
    try locked { core in
      try core.connection.prepare(
        """
        SELECT i.wall, i.monotonic, b.boot_id, i.ibi_ms, i.segment, i.clock_state FROM ibis i
        JOIN boots b ON b.id = i.boot
        WHERE i.wall >= ?1 AND i.wall < ?2 ORDER BY i.seq LIMIT ?3
        """
      ).rows([.real(since ?? -.infinity), .real(until ?? .infinity), .int(limit ?? -1)]) { row in
        let state = ClockState(rawValue: row.int(5)) ?? .unresolved
        return StoredIBI(
          ibi: IBIRecord(
            wall: row.double(0), monotonic: row.double(1), bootId: row.text(2) ?? "", clockSynchronised: state.isKnown,
            ibiMs: row.double(3), segment: row.int(4)),
          clockState: state)
      }
    }
  }
}

// MARK: - Queries and decoding

extension StoreCore {
  /// The columns of a measurement row, in the order `decodeMeasurement` reads them.
  static let measurementSelect = """
    SELECT m.id, m.device_id, m.window_start, m.window_end, b.boot_id, m.monotonic_end, m.clock_state,
      m.stress_level, m.category, m.confidence, m.sdnn_ms, m.rmssd_ms, m.heart_rate_bpm, m.baseline_hrv_ms,
      m.resting_heart_rate_bpm, m.baseline_personal, m.quality, m.beats, m.rejected_beats, m.modified_at,
      m.recorded_window_end, m.needs_upload, m.uploaded_at, m.quarantine_reason, m.quarantined_at
    FROM measurements m JOIN boots b ON b.id = m.boot
    """

  func measurements(_ query: MeasurementQuery) throws -> [StoredMeasurement] {
    let order = query.newestFirst ? "DESC" : "ASC"
    let sql = Self.measurementSelect
      + " WHERE m.window_end >= ?1 AND m.window_end < ?2 ORDER BY m.window_end \(order), m.seq \(order) LIMIT ?3"
    return try connection.cached(sql).rows(
      [.real(query.since ?? -.infinity), .real(query.until ?? .infinity), .int(query.limit ?? -1)]
    ) { try Self.decodeMeasurement($0, path: path) }
  }

  /// Decodes the columns of `measurementSelect`, starting at column `offset`.
  static func decodeMeasurement(_ row: SQLiteStatement, path: String, offset: Int32 = 0) throws -> StoredMeasurement {
    let row = OffsetRow(statement: row, offset: offset)
    let id = row.text(0) ?? ""
    guard let state = ClockState(rawValue: row.int(6)) else {
      throw StoreError.corrupt(path: path, detail: "measurement \(id) has clock state \(row.int(6))")
    }
    var category: StressCategory?
    if let text = row.text(8) {
      guard let value = StressCategory(rawValue: text) else {
        throw StoreError.corrupt(path: path, detail: "measurement \(id) has category '\(text)'")
      }
      category = value
    }
    let qualityText = row.text(16) ?? ""
    guard let quality = WindowQuality(rawValue: qualityText) else {
      throw StoreError.corrupt(path: path, detail: "measurement \(id) has quality '\(qualityText)'")
    }
    let record = MeasurementRecord(
      id: id, deviceId: row.text(1) ?? "", windowStart: row.double(2), windowEnd: row.double(3),
      bootId: row.text(4) ?? "", monotonicEnd: row.double(5), clockSynchronised: state.isKnown,
      stressLevel: row.optionalDouble(7), category: category, confidence: row.double(9), sdnnMs: row.optionalDouble(10),
      rmssdMs: row.optionalDouble(11), heartRateBpm: row.optionalDouble(12), baselineHrvMs: row.double(13),
      restingHeartRateBpm: row.double(14), baselinePersonal: row.int(15) != 0, quality: quality, beats: row.int(17),
      rejectedBeats: row.int(18), modifiedAt: row.double(19))
    let upload: UploadState
    if let reason = row.text(23) {
      upload = .quarantined(reason: reason, at: row.double(24))
    } else if row.int(21) == 0 {
      upload = .uploaded(at: row.optionalDouble(22) ?? 0)
    } else {
      switch state {
      case .synchronised, .corrected: upload = .pending
      case .waiting: upload = .waitingForClock
      case .unresolved: upload = .clockUnresolved
      }
    }
    return StoredMeasurement(record: record, clockState: state, recordedWindowEnd: row.double(20), upload: upload)
  }

  /// Column access shifted by a fixed offset, so one decoder serves queries with extra leading columns.
  struct OffsetRow {
    let statement: SQLiteStatement
    let offset: Int32
    func isNull(_ column: Int32) -> Bool { statement.isNull(column + offset) }
    func int(_ column: Int32) -> Int { statement.int(column + offset) }
    func double(_ column: Int32) -> Double { statement.double(column + offset) }
    func optionalDouble(_ column: Int32) -> Double? { statement.optionalDouble(column + offset) }
    func text(_ column: Int32) -> String? { statement.text(column + offset) }
  }

  func status() throws -> StoreStatus {
    let counts = try connection.prepare(
      """
      SELECT count(*),
        sum(needs_upload = 1 AND quarantined_at IS NULL AND clock_state <= 1),
        sum(needs_upload = 1 AND quarantined_at IS NULL AND clock_state = 2),
        sum(needs_upload = 1 AND quarantined_at IS NULL AND clock_state = 3),
        sum(quarantined_at IS NOT NULL),
        sum(needs_upload = 0 AND quarantined_at IS NULL),
        min(window_end), max(window_end)
      FROM measurements
      """
    ).rows { row in
      (
        row.int(0), row.int(1), row.int(2), row.int(3), row.int(4), row.int(5), row.optionalDouble(6),
        row.optionalDouble(7)
      )
    }[0]
    let ibis = Int(try connection.scalarInt("SELECT count(*) FROM ibis") ?? 0)
    let pageSize = try connection.scalarInt("PRAGMA page_size") ?? 4096
    let pages = try connection.scalarInt("PRAGMA page_count") ?? 0
    let free = try connection.scalarInt("PRAGMA freelist_count") ?? 0
    return StoreStatus(
      path: path, schemaVersion: try SchemaMigrator.version(of: connection), measurements: counts.0, ibis: ibis,
      outbox: OutboxStatus(
        pending: counts.1, waitingForClock: counts.2, quarantined: counts.4, lastUploadAt: try value(.lastUploadAt),
        droppedForSpace: try counter(.droppedUnsyncedMeasurements)),
      clockUnresolved: counts.3, uploaded: counts.5, oldestWindowEnd: counts.6, newestWindowEnd: counts.7,
      usedBytes: (pages - free) * pageSize, fileBytes: Self.fileSize(path), walBytes: Self.fileSize(path + "-wal"),
      droppedUnsyncedMeasurements: try counter(.droppedUnsyncedMeasurements),
      retiredMeasurements: try counter(.retiredMeasurements), retiredIBIs: try counter(.retiredIBIs))
  }

  /// Size of a file in bytes; 0 when it does not exist.
  static func fileSize(_ path: String) -> Int64 {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0 }
    return Int64(info.st_size)
  }
}

extension String {
  /// The string with its leading "SELECT " replaced (to prepend columns to a shared select list).
  fileprivate func replacingFirstSelect(with prefix: String) -> String {
    guard hasPrefix("SELECT ") else { return self }
    return prefix + dropFirst("SELECT ".count)
  }
}
