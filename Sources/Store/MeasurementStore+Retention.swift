import Platform
import SQLite

/// How much history the store keeps. Rows not yet on the hub (pending, waiting for the clock, clock unresolved,
/// quarantined) are never deleted by age or size: only `makeRoom` (disk full) may drop them, oldest first,
/// counted and logged.
public struct RetentionPolicy: Sendable, Equatable {
  /// Uploaded measurements older than this go (seconds). Default one year: ~3 M rows, ~0.5 GB.
  public var measurementMaxAgeSeconds: Double
  /// IBIs older than this go (seconds). Default 30 days, the baseline's look-back, so windows can be
  /// recomputed from their beats for as long as they shape the baseline.
  public var ibiMaxAgeSeconds: Double
  /// Above this many bytes in use, the oldest IBIs and then the oldest uploaded measurements go.
  public var maxDatabaseBytes: Int64
  /// Rows per delete transaction: keeps each transaction short so the writer and the sync client interleave.
  public var chunkRows: Int

  public init(
    measurementMaxAgeSeconds: Double = 365 * 86_400, ibiMaxAgeSeconds: Double = 30 * 86_400,
    maxDatabaseBytes: Int64 = 1 << 30, chunkRows: Int = 2_000
  ) {
    self.measurementMaxAgeSeconds = measurementMaxAgeSeconds
    self.ibiMaxAgeSeconds = ibiMaxAgeSeconds
    self.maxDatabaseBytes = maxDatabaseBytes
    self.chunkRows = chunkRows
  }
}

/// What a retention pass or an emergency clean-up removed.
public struct RetentionReport: Sendable, Equatable {
  public var retiredMeasurements = 0
  public var retiredIBIs = 0
  /// Not-yet-uploaded measurements dropped because the disk was full.
  public var droppedUnsyncedMeasurements = 0
  public var usedBytesBefore: Int64 = 0
  public var usedBytesAfter: Int64 = 0
  /// Still above the size limit, with nothing left that may be deleted (only rows not yet on the hub).
  public var overLimit = false

  public init() {}
}

extension MeasurementStore {
  // MARK: - Retention

  /// Deletes by age (only with a synchronised clock: "now" must be right) and then by size, in short chunked
  /// transactions. Never touches rows that are not on the hub yet.
  @discardableResult
  public func applyRetention(_ policy: RetentionPolicy, clock reading: ClockReading) throws(StoreError) -> RetentionReport {
    var report = RetentionReport()
    report.usedBytesBefore = try locked { core in try core.usedBytes() }
    let chunk = max(1, policy.chunkRows)
    if reading.synchronised {
      let ibiCutoff = reading.wall - policy.ibiMaxAgeSeconds
      report.retiredIBIs += try deleteChunks(.retiredIBIs) { core in
        try core.deleteIBIs(where: "clock_state <= 1 AND wall < ?1", [.real(ibiCutoff)], limit: chunk)
      }
      let measurementCutoff = reading.wall - policy.measurementMaxAgeSeconds
      report.retiredMeasurements += try deleteChunks(.retiredMeasurements) { core in
        try core.deleteMeasurements(
          where: "needs_upload = 0 AND quarantined_at IS NULL AND window_end < ?1", [.real(measurementCutoff)],
          limit: chunk)
      }
    }
    let overLimit = { @Sendable (core: StoreCore) throws -> Bool in try core.usedBytes() > policy.maxDatabaseBytes }
    report.retiredIBIs += try deleteChunks(.retiredIBIs, while: overLimit) { core in
      try core.deleteIBIs(where: "1", [], limit: chunk)
    }
    report.retiredMeasurements += try deleteChunks(.retiredMeasurements, while: overLimit) { core in
      try core.deleteMeasurements(where: "needs_upload = 0 AND quarantined_at IS NULL", [], limit: chunk)
    }
    report.overLimit = try locked(overLimit)
    report.usedBytesAfter = try locked { core in try core.usedBytes() }
    if report.overLimit {
      MeasurementStore.logger.warning(
        "store above its size limit, but only rows not yet uploaded remain: keeping them",
        metadata: ["used_bytes": "\(report.usedBytesAfter)", "limit_bytes": "\(policy.maxDatabaseBytes)"])
    }
    try locked { core in core.ensureReserve() }
    return report
  }

  /// The disk is full: releases the reserve file, then frees at least `bytes` inside the database by deleting
  /// the oldest IBIs, then the oldest uploaded measurements, and only then the oldest measurements not yet
  /// uploaded — counted in `droppedUnsyncedMeasurements` and logged. Freed pages are reused by later inserts, so
  /// the store keeps working on a full disk.
  @discardableResult
  public func makeRoom(bytes: Int64, chunkRows: Int = 500) throws(StoreError) -> RetentionReport {
    var report = RetentionReport()
    try locked { core in
      core.releaseReserve()
      // First fold the WAL into the main file with the space the reserve gave back: until then the WAL holds
      // pages the file does not have yet, and every delete would have to grow the WAL further. Best effort:
      // without a reserve the deletes below may still fit in the WAL's existing blocks.
      try? core.connection.execute("PRAGMA wal_checkpoint(RESTART)")
    }
    report.usedBytesBefore = try locked { core in try core.usedBytes() }
    let notEnough = { @Sendable (core: StoreCore) throws -> Bool in try core.freeBytes() < bytes }
    report.retiredIBIs += try deleteChunks(.retiredIBIs, while: notEnough, checkpointEach: true) { core in
      try core.deleteIBIs(where: "1", [], limit: chunkRows)
    }
    report.retiredMeasurements += try deleteChunks(.retiredMeasurements, while: notEnough, checkpointEach: true) { core in
      try core.deleteMeasurements(where: "needs_upload = 0 AND quarantined_at IS NULL", [], limit: chunkRows)
    }
    report.droppedUnsyncedMeasurements += try deleteChunks(.droppedUnsyncedMeasurements, while: notEnough, checkpointEach: true) { core in
      try core.deleteMeasurements(where: "1", [], limit: chunkRows)
    }
    report.usedBytesAfter = try locked { core in try core.usedBytes() }
    MeasurementStore.logger.error(
      "disk full: made room in the store",
      metadata: [
        "path": "\(path)", "ibis_deleted": "\(report.retiredIBIs)",
        "uploaded_measurements_deleted": "\(report.retiredMeasurements)",
        "unsynced_measurements_dropped": "\(report.droppedUnsyncedMeasurements)",
      ])
    return report
  }

  /// On a (nearly) full disk, keeps enough free pages inside the file for the next `bytes` of rows, so the file
  /// does not need to grow: deletes the oldest rows ahead of time through `makeRoom`. Does nothing while the file
  /// system has room. The writer calls it before every commit; it costs one statvfs.
  @discardableResult
  public func ensureRoom(forBytes bytes: Int64) throws(StoreError) -> RetentionReport? {
    let lowWater = max(options.reserveBytes, Self.lowDiskBytes)
    let (available, free) = try locked { core in (core.availableDiskBytes(), try core.freeBytes()) }
    guard let available, available < lowWater, free < bytes else { return nil }
    return try makeRoom(bytes: max(8 * bytes, Self.roomStepBytes))
  }

  /// Below this much free disk space the store stops growing its file and reuses its own pages.
  static let lowDiskBytes: Int64 = 1 << 20
  /// Free pages to make at a time on a full disk: a few minutes of rows, so clean-ups are not per commit.
  static let roomStepBytes: Int64 = 256 << 10

  // MARK: - Private

  /// Runs `delete` in its own transaction (counting into `counter`) until it deletes nothing or `condition`
  /// turns false. With `checkpointEach` (disk full) every chunk is folded into the main file right away, so the
  /// next transaction starts the WAL over in blocks it already owns instead of growing it onto a full disk.
  private func deleteChunks(
    _ counter: StoreCounter, while condition: (@Sendable (StoreCore) throws -> Bool)? = nil,
    checkpointEach: Bool = false, _ delete: @Sendable (StoreCore) throws -> Int
  ) throws(StoreError) -> Int {
    var total = 0
    while true {
      let deleted = try locked { core -> Int in
        if let condition, try !condition(core) { return 0 }
        let deleted = try core.connection.transaction {
          let deleted = try delete(core)
          if deleted > 0 { try core.add(counter, deleted) }
          return deleted
        }
        if checkpointEach { try core.connection.execute("PRAGMA wal_checkpoint(PASSIVE)") }
        return deleted
      }
      if deleted == 0 { return total }
      total += deleted
    }
  }
}

// MARK: - Counters, sizes and the reserve file

/// Named totals in the `counters` table.
enum StoreCounter: String {
  case droppedUnsyncedMeasurements = "dropped_unsynced_measurements"
  case retiredMeasurements = "retired_measurements"
  case retiredIBIs = "retired_ibis"
  case lastUploadAt = "last_upload_at"
}

extension StoreCore {
  func deleteIBIs(where condition: String, _ values: [SQLiteValue], limit: Int) throws -> Int {
    try connection.cached(
      "DELETE FROM ibis WHERE seq IN (SELECT seq FROM ibis WHERE \(condition) ORDER BY seq LIMIT \(limit))"
    ).run(values)
    return connection.changes
  }

  func deleteMeasurements(where condition: String, _ values: [SQLiteValue], limit: Int) throws -> Int {
    try connection.cached(
      "DELETE FROM measurements WHERE seq IN "
        + "(SELECT seq FROM measurements WHERE \(condition) ORDER BY window_end, seq LIMIT \(limit))"
    ).run(values)
    return connection.changes
  }

  func counter(_ counter: StoreCounter) throws -> Int {
    Int(try connection.cached("SELECT value FROM counters WHERE name = ?1").rows([.text(counter.rawValue)]) {
      $0.int64(0)
    }.first ?? 0)
  }

  func value(_ counter: StoreCounter) throws -> Double? {
    try connection.cached("SELECT value FROM counters WHERE name = ?1").rows([.text(counter.rawValue)]) {
      $0.double(0)
    }.first
  }

  func add(_ counter: StoreCounter, _ amount: Int) throws {
    try connection.cached(
      "INSERT INTO counters (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = value + ?2"
    ).run([.text(counter.rawValue), .int(amount)])
  }

  func setValue(_ counter: StoreCounter, _ value: Double) throws {
    try connection.cached(
      "INSERT INTO counters (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = ?2"
    ).run([.text(counter.rawValue), .real(value)])
  }

  /// Bytes of pages in use (the file's pages minus its free list).
  func usedBytes() throws -> Int64 {
    let pageSize = try connection.scalarInt("PRAGMA page_size") ?? 4096
    let pages = try connection.scalarInt("PRAGMA page_count") ?? 0
    let free = try connection.scalarInt("PRAGMA freelist_count") ?? 0
    return (pages - free) * pageSize
  }

  /// Bytes of free pages inside the file: what inserts can use without growing it.
  func freeBytes() throws -> Int64 {
    let pageSize = try connection.scalarInt("PRAGMA page_size") ?? 4096
    return (try connection.scalarInt("PRAGMA freelist_count") ?? 0) * pageSize
  }

  /// Creates the reserve file when it is missing and at least as much room again stays free after it, so the
  /// reserve itself never fills the disk.
  func ensureReserve() {
    let size = options.reserveBytes
    guard size > 0, !options.readOnly, access(reservePath, F_OK) != 0 else { return }
    var info = statvfs()
    guard statvfs(Self.parentDirectory(of: path), &info) == 0 else { return }
    let available = Int64(info.f_bavail) * Int64(info.f_frsize)
    guard available >= 2 * size else { return }
    if !allocateFile(reservePath, bytes: size) { unlink(reservePath) }
  }

  /// Bytes available to this user on the database's file system; nil if statvfs fails.
  func availableDiskBytes() -> Int64? {
    var info = statvfs()
    guard statvfs(Self.parentDirectory(of: path), &info) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// Deletes the reserve file, giving its space back to the file system.
  func releaseReserve() {
    if unlink(reservePath) == 0 {
      MeasurementStore.logger.warning("released the store's disk reserve", metadata: ["path": "\(reservePath)"])
    }
  }
}

/// Creates `path` with `bytes` of allocated (not sparse) space. False when the allocation failed.
private func allocateFile(_ path: String, bytes: Int64) -> Bool {
  guard let file = try? FileDescriptor.open(path, .writeOnly, options: .create, permissions: 0o600) else {
    return false
  }
  defer { try? file.close() }
  return posix_fallocate(file.rawValue, 0, off_t(bytes)) == 0
}
