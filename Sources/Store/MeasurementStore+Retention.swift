import Logging
import Platform
import SQLite

/// A file system's size and the bytes this user may still write there.
public struct DiskSpace: Sendable, Equatable {
  public var totalBytes: Int64
  public var availableBytes: Int64

  public init(totalBytes: Int64, availableBytes: Int64) {
    self.totalBytes = totalBytes
    self.availableBytes = availableBytes
  }
}

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
  /// The disk-full reserve file was deleted to make room.
  public var releasedReserve = false
  /// The disk had room again (the reserve could be allocated): nothing was deleted.
  public var spaceReturned = false

  /// Whether anything was freed (rows deleted, the reserve released, or space found again).
  public var freedAnything: Bool {
    releasedReserve || spaceReturned || retiredMeasurements + retiredIBIs + droppedUnsyncedMeasurements > 0
  }

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

  /// The disk is full (a write failed with SQLITE_FULL or ENOSPC; never a guess from statvfs, which some file
  /// systems answer with 0 free blocks while writes still succeed), or the store is still in that state and its
  /// free pages are running out (`ensureRoom`). Frees at least `bytes` inside the database, least valuable first:
  /// 1. still full from before: first a fresh proof that it is: the reserve is allocated again (twice its size,
  ///    then halved); if that works, space came back, the store leaves the full state and nothing is deleted;
  /// 2. the reserve file `<db>-reserve` goes, and the WAL is folded into the main file with that space;
  /// 3. the oldest IBIs, then the oldest windows already on the hub, until `bytes + headroomBytes` are free (so
  ///    that the next commits fit as well);
  /// 4. only if that is not enough, the oldest windows not yet on the hub, a few at a time and only until `bytes`
  ///    are free: the newest rows are kept. Counted in `droppedUnsyncedMeasurements` (and the `counters` table)
  ///    and logged.
  /// Freed pages are reused by later inserts, so the file stops growing and the store keeps working on a full disk.
  /// A report with `freedAnything` false means nothing more can be freed.
  @discardableResult
  public func makeRoom(bytes: Int64, headroomBytes: Int64 = 0, chunkRows: Int = 500) throws(StoreError)
    -> RetentionReport
  {
    var report = RetentionReport()
    let spaceBack = try locked { core -> Bool in
      if core.diskFullMode && core.restoreReserve() { return true }
      core.diskFullMode = true
      report.releasedReserve = core.releaseReserve()
      // Fold the WAL into the main file with the space the reserve gave back: until then the WAL holds pages the
      // file does not have yet, and every delete would have to grow the WAL further. Best effort: without a
      // reserve the deletes below may still fit in the WAL's existing blocks.
      try? core.connection.execute("PRAGMA wal_checkpoint(RESTART)")
      return false
    }
    if spaceBack {
      report.spaceReturned = true
      return report
    }
    report.usedBytesBefore = try locked { core in try core.usedBytes() }
    let comfortable = { @Sendable (core: StoreCore) throws -> Bool in try core.freeBytes() < bytes + headroomBytes }
    report.retiredIBIs += try deleteChunks(.retiredIBIs, while: comfortable, checkpointEach: true) { core in
      try core.deleteIBIs(where: "1", [], limit: chunkRows)
    }
    report.retiredMeasurements += try deleteChunks(.retiredMeasurements, while: comfortable, checkpointEach: true) {
      core in try core.deleteMeasurements(where: "needs_upload = 0 AND quarantined_at IS NULL", [], limit: chunkRows)
    }
    let needed = { @Sendable (core: StoreCore) throws -> Bool in try core.freeBytes() < bytes }
    report.droppedUnsyncedMeasurements += try deleteChunks(
      .droppedUnsyncedMeasurements, while: needed, checkpointEach: true
    ) { core in
      try core.deleteMeasurements(where: "1", [], limit: Self.unsyncedChunkRows)
    }
    report.usedBytesAfter = try locked { core in try core.usedBytes() }
    if report.freedAnything {
      MeasurementStore.logger.log(
        level: report.droppedUnsyncedMeasurements > 0 ? .error : .warning, "disk full: made room in the store",
        metadata: [
          "path": "\(path)", "ibis_deleted": "\(report.retiredIBIs)",
          "uploaded_measurements_deleted": "\(report.retiredMeasurements)",
          "unsynced_measurements_dropped": "\(report.droppedUnsyncedMeasurements)",
        ])
    }
    return report
  }

  /// Before a commit of about `bytes`: while the store is in the full-disk state (a write failed for want of space
  /// and the reserve could not be allocated again since), keeps that much free inside the file through `makeRoom`,
  /// so new rows reuse pages and the file never needs to grow at a checkpoint. Otherwise (the normal case, and a
  /// file system that merely reports 0 free blocks) does nothing: nil.
  @discardableResult
  public func ensureRoom(forBytes bytes: Int64, headroomBytes: Int64 = 0) throws(StoreError) -> RetentionReport? {
    let short = try locked { core in try core.diskFullMode && core.freeBytes() < bytes }
    guard short else { return nil }
    return try makeRoom(bytes: bytes, headroomBytes: headroomBytes)
  }

  /// Whether the store is in the full-disk state (see `ensureRoom`).
  public var isDiskFull: Bool { (try? locked { core in core.diskFullMode }) ?? false }

  /// Rows not yet on the hub are dropped this many at a time on a full disk, each step followed by a check: as few
  /// as the write needs (about two 1 KiB pages' worth of windows with their index entries).
  static let unsyncedChunkRows = 8

  /// The reserve kept beside a database on a file system of `totalBytes`: a sixty-fourth of it, at most
  /// `maximum`, at least `minimumReserveBytes` (enough to fold the WAL back in on a full disk, since the WAL is
  /// checkpointed at half the reserve). Unknown size (a file system answering 0): `maximum`.
  public static func reserveSize(maximum: Int64, fileSystemBytes totalBytes: Int64?) -> Int64 {
    guard maximum > 0 else { return 0 }
    guard let totalBytes, totalBytes > 0 else { return maximum }
    return min(maximum, max(minimumReserveBytes, totalBytes / 64))
  }

  /// The smallest reserve: the WAL then checkpoints every 64 pages (64 KiB with 1 KiB pages), and the clean-up's
  /// own transactions fit in the other half.
  static let minimumReserveBytes: Int64 = 128 << 10

  /// The smallest reserve made when the disk is already nearly full at open (half of what is free, down to this).
  static let tightReserveFloorBytes: Int64 = 32 << 10

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
  /// reserve itself never fills the disk. Its size was decided at open from the file system's size; with less than
  /// twice that free, the reserve is half of what is free (at least `tightReserveFloorBytes`) and the WAL is
  /// checkpointed at half of it, so that the clean-up can still run when the disk fills. In the full-disk state the
  /// allocation itself is the test (statvfs may not tell the truth).
  func ensureReserve() {
    guard reserveBytes > 0, !options.readOnly, access(reservePath, F_OK) != 0 else { return }
    if diskFullMode {
      _ = restoreReserve()
      return
    }
    guard let space = diskSpace() else { return }
    var size = reserveBytes
    if space.availableBytes < 2 * size {
      size = space.availableBytes / 2 / 4096 * 4096
      guard size >= MeasurementStore.tightReserveFloorBytes else { return }
    }
    guard allocateFile(reservePath, bytes: size) else {
      unlink(reservePath)
      return
    }
    if size < reserveBytes { shrinkReserve(to: size) }
  }

  /// The reserve made is smaller than planned: the WAL must be checkpointed at half of it, so that folding the WAL
  /// into the main file still fits in the space the reserve gives back.
  private func shrinkReserve(to size: Int64) {
    let pageSize = Int64((try? connection.scalarInt("PRAGMA page_size")) ?? 4096)
    let pages = max(4, size / (2 * max(512, pageSize)))
    do {
      try connection.execute("PRAGMA wal_autocheckpoint = \(pages)")
    } catch {
      // The planned checkpoint interval stays; keep the planned reserve then, as the two must match.
      unlink(reservePath)
      return
    }
    MeasurementStore.logger.notice(
      "the disk is nearly full: a smaller disk-full reserve",
      metadata: ["path": "\(reservePath)", "bytes": "\(size)", "planned_bytes": "\(reserveBytes)"])
    reserveBytes = size
  }

  /// In the full-disk state: allocates the reserve at twice its size and gives half back, which proves there is
  /// room again beyond it; then leaves the state. False (and no file) when the disk is still full.
  func restoreReserve() -> Bool {
    let size = max(reserveBytes, MeasurementStore.minimumReserveBytes)
    guard allocateFile(reservePath, bytes: 2 * size), truncate(reservePath, off_t(reserveBytes)) == 0 else {
      unlink(reservePath)
      return false
    }
    if reserveBytes == 0 { unlink(reservePath) }
    diskFullMode = false
    MeasurementStore.logger.notice("disk space is back: the store grows again", metadata: ["path": "\(path)"])
    return true
  }

  /// The database's file system: its size and what this user may still write (statvfs, or the test hook).
  func diskSpace() -> DiskSpace? {
    let directory = Self.parentDirectory(of: path)
    if let probe = options.diskSpace { return probe(directory) }
    var info = statvfs()
    guard statvfs(directory, &info) == 0 else { return nil }
    return DiskSpace(
      totalBytes: Int64(info.f_blocks) * Int64(info.f_frsize),
      availableBytes: Int64(info.f_bavail) * Int64(info.f_frsize))
  }

  /// Deletes the reserve file, giving its space back to the file system. True when there was one.
  @discardableResult
  func releaseReserve() -> Bool {
    guard unlink(reservePath) == 0 else { return false }
    MeasurementStore.logger.warning("released the store's disk reserve", metadata: ["path": "\(reservePath)"])
    return true
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
