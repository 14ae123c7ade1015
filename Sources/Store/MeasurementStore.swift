import FoundationEssentials
import Logging
import Platform
import SQLite
import Synchronization

/// The device's SQLite store: measurements, clean IBIs, clock anchors per boot, the baseline and its history,
/// and the sync outbox (sync state columns on the measurement rows).
///
/// Thread safety: one `SQLiteConnection` (opened NOMUTEX) lives inside a `Mutex`; every public method takes the
/// lock for its whole duration, so calls from any task are serialised and a transaction is never interleaved.
/// Several processes may open the same file (the daemon writes, CLI commands read): SQLite's WAL locking and a
/// busy timeout handle that.
public final class MeasurementStore: Sendable {
  // MARK: - Nested types

  /// How a commit reaches the disk (SQLite `PRAGMA synchronous` in WAL mode). See docs/store.md for the
  /// measurements behind the default.
  public enum Durability: String, Sendable {
    /// fdatasync of the WAL at every commit: a power cut loses nothing that was committed.
    case full
    /// No sync at commit; the kernel writes the WAL back within its dirty-page expiry (30 s by default) and
    /// SQLite syncs at checkpoints. A power cut may lose that much; the file is never corrupted.
    case normal
  }

  public struct Options: Sendable {
    /// Open for reading only: no migration, no writes (the file must exist and be at the current schema).
    public var readOnly: Bool
    /// Create the file (and its directory) when missing.
    public var create: Bool
    public var durability: Durability
    /// How long a writer waits for another process's lock before `StoreError.busy`.
    public var busyTimeoutMs: Int32
    /// The most space kept aside next to the database (`<db>-reserve`) and released when the disk fills, so that
    /// the emergency clean-up itself has room to run. The reserve itself is decided at open from the file system's
    /// size (a sixty-fourth of it, 128 KiB to this much): a 2 MiB reserve on a 2 MiB card would throw away rows
    /// while real space remains. 0 disables it.
    public var reserveBytes: Int64
    /// Test hook: caps the database at this many pages (`PRAGMA max_page_count`) to produce SQLITE_FULL.
    public var maxPageCount: Int?
    /// Test hook: a registered SQLite VFS to open the file through (the power-cut simulator); nil: the default.
    public var vfs: String?
    /// Test hook: what the database's file system reports (size, bytes available); nil: statvfs(2).
    public var diskSpace: (@Sendable (String) -> DiskSpace?)?
    /// The schema steps to apply; tests pass other lists to exercise upgrades and refusals.
    public var migrations: [SchemaMigration]
    /// Page size of a newly created file (bytes, a power of two 512-65536). 1 KiB rather than SQLite's 4 KiB:
    /// each commit appends whole pages to the WAL, and this workload touches 2-4 pages per commit, so smaller
    /// pages cut the bytes written per hour by ~2.9× (docs/store.md, "Writes per hour").
    public var pageSize: Int = 1_024

    public init(
      readOnly: Bool = false, create: Bool = true, durability: Durability = .full, busyTimeoutMs: Int32 = 5_000,
      reserveBytes: Int64 = 2 << 20, maxPageCount: Int? = nil, migrations: [SchemaMigration] = StoreSchema.migrations
    ) {
      self.readOnly = readOnly
      self.create = create
      self.durability = durability
      self.busyTimeoutMs = busyTimeoutMs
      self.reserveBytes = reserveBytes
      self.maxPageCount = maxPageCount
      self.migrations = migrations
    }

    /// WAL pages between automatic checkpoints for a file with `pageSize`-byte pages and a reserve of
    /// `reserveBytes`. Everything in the WAL has to fit into the main file at the next checkpoint, so on a full
    /// disk the reserve must cover it: half the reserve, 64-1000 pages. With a 2 MiB reserve and 1 KiB pages: 1000
    /// pages, a WAL of ~1 MiB.
    public static func walAutocheckpointPages(reserveBytes: Int64, pageSize: Int) -> Int {
      guard reserveBytes > 0 else { return 1_000 }
      return min(1_000, max(64, Int(reserveBytes / Int64(2 * max(512, pageSize)))))
    }

    /// For CLI commands that only read: never create, never migrate.
    public static let reading = Options(readOnly: true, create: false, reserveBytes: 0)
  }

  // MARK: - Properties

  public let path: String
  public let options: Options
  let guarded: Mutex<StoreCore?>
  static let logger = Logger(label: "stressmon.store")

  // MARK: - Initialization

  /// Opens (and with `options.create`, creates) the database at `path`, switches it to WAL and migrates it.
  /// A newer or foreign database is refused before anything is written to it.
  public init(path: String, options: Options = Options()) throws(StoreError) {
    self.path = path
    self.options = options
    let core = try StoreCore.open(path: path, options: options)
    guarded = Mutex(core)
  }

  // MARK: - Public

  /// Closes the connection; later calls throw `StoreError.closed`. Committed data is on disk already.
  public func close() {
    guarded.withLock { core in
      core?.close()
      core = nil
    }
  }

  /// The schema version of the open file.
  public func schemaVersion() throws(StoreError) -> Int {
    try locked { core in try SchemaMigrator.version(of: core.connection) }
  }

  /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else SQLite's list of problems.
  public func integrityCheck() throws(StoreError) -> [String] {
    try locked { core in
      try core.connection.prepare("PRAGMA integrity_check").rows { $0.text(0) ?? "" }
    }
  }

  /// Counts and sizes for status lines, `doctor`, and tests.
  public func status() throws(StoreError) -> StoreStatus {
    try locked { core in try core.status() }
  }

  /// Folds the write-ahead log into the main file and truncates it (on shutdown, or before copying the file).
  public func checkpoint() throws(StoreError) {
    try locked { core in try core.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
  }

  // MARK: - Internal

  /// Runs `body` with the open core under the lock, mapping SQLite errors to store errors.
  func locked<T: Sendable>(_ body: (StoreCore) throws -> T) throws(StoreError) -> T {
    let path = self.path
    return try guarded.withLock { (core: inout StoreCore?) throws(StoreError) -> T in
      guard let open = core else { throw StoreError.closed(path: path) }
      return try StoreError.mapping(path: path) { try body(open) }
    }
  }
}

/// The connection and the per-process caches that go with it. Only ever used under `MeasurementStore.guarded`.
final class StoreCore {
  // MARK: - Properties

  let connection: SQLiteConnection
  let path: String
  let options: MeasurementStore.Options
  /// `boots.id` by boot id string.
  var bootRows: [String: Int64] = [:]
  /// Synchronisation anchor per boot row, once known (a missing key means "not loaded yet").
  var anchors: [Int64: ClockAnchor?] = [:]
  /// The boot of the latest clock reading this process observed.
  var currentBootId: String?
  /// Whether rows of ended boots without a sync point have been marked unresolved in this process.
  var resolvedEndedBoots = false

  var reservePath: String { path + "-reserve" }
  /// The disk-full reserve for this file system (decided at open; `Options.reserveBytes` is its ceiling; smaller
  /// when the disk was already nearly full, `ensureReserve`).
  var reserveBytes: Int64 = 0
  /// A write failed for want of space and the reserve could not be allocated again since (`makeRoom`).
  var diskFullMode = false

  // MARK: - Initialization

  init(connection: SQLiteConnection, path: String, options: MeasurementStore.Options) {
    self.connection = connection
    self.path = path
    self.options = options
  }

  static func open(path: String, options: MeasurementStore.Options) throws(StoreError) -> StoreCore {
    let fileManager = FileManager.default
    var isDirectory = false
    let exists = fileManager.fileExists(atPath: path, isDirectory: &isDirectory)
    if exists && isDirectory { throw .cannotOpen(path: path, reason: "it is a directory") }
    if !exists {
      guard options.create && !options.readOnly else { throw .missing(path: path) }
      let directory = parentDirectory(of: path)
      do {
        try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
      } catch {
        throw .cannotOpen(path: path, reason: "cannot create the directory \(directory)")
      }
      // Health data: the file is made readable by its owner only before SQLite opens it (SQLite would make it
      // 0644, and gives its -wal and -shm files the database file's mode).
      if let reason = SQLiteConnection.createPrivateFile(path) { throw .cannotOpen(path: path, reason: reason) }
    }
    let connection: SQLiteConnection
    do {
      connection = try SQLiteConnection(
        path: path, readOnly: options.readOnly, create: options.create, busyTimeoutMs: options.busyTimeoutMs,
        immutable: options.readOnly && isOnReadOnlyMedium(path) && fileSize(path + "-wal") == 0, vfs: options.vfs)
    } catch {
      throw StoreError.from(error, path: path)
    }
    let core = StoreCore(connection: connection, path: path, options: options)
    do {
      try core.configure()
    } catch {
      connection.close()
      throw error
    }
    return core
  }

  // MARK: - Internal

  func close() {
    connection.close()
  }

  /// Identity and version check first (nothing written to a foreign or newer file), then WAL, durability,
  /// migrations, and the disk-full reserve.
  private func configure() throws(StoreError) {
    let migrator = SchemaMigrator(migrations: options.migrations)
    // Before reading anything: on a read-only medium SQLite silently falls back to a read-only handle, and the
    // first read of a WAL file could then fail for want of its -shm file, hiding the real cause.
    if !options.readOnly && connection.isReadOnly {
      throw .readOnly(path: path, reason: "the file or its file system is not writable")
    }
    try migrator.check(connection)
    if options.readOnly {
      let version = try StoreError.mapping(path: path) { try SchemaMigrator.version(of: connection) }
      if version < (migrator.migrations.last?.version ?? 0) {
        throw .cannotOpen(path: path, reason: "schema \(version) is older than this binary's; open it once for writing")
      }
      return
    }
    try StoreError.mapping(path: path) {
      // Only takes effect on a new, empty file (before WAL mode and the first table); ignored afterwards.
      try connection.execute("PRAGMA page_size = \(options.pageSize)")
      let mode = try connection.scalarText("PRAGMA journal_mode = WAL")
      guard mode?.lowercased() == "wal" else {
        throw StoreError.cannotOpen(path: path, reason: "SQLite refused WAL mode (got \(mode ?? "nothing"))")
      }
      try connection.execute("PRAGMA synchronous = \(options.durability == .full ? "FULL" : "NORMAL")")
      // Keep a checkpointed WAL file at most this big instead of letting it shrink and regrow.
      try connection.execute("PRAGMA journal_size_limit = \(Self.walSizeLimitBytes)")
      reserveBytes = MeasurementStore.reserveSize(
        maximum: options.reserveBytes, fileSystemBytes: diskSpace()?.totalBytes)
      let pageSize = Int(try connection.scalarInt("PRAGMA page_size") ?? 4096)
      let checkpointPages = MeasurementStore.Options.walAutocheckpointPages(
        reserveBytes: reserveBytes, pageSize: pageSize)
      try connection.execute("PRAGMA wal_autocheckpoint = \(checkpointPages)")
      connection.persistWAL()
      if let pages = options.maxPageCount { _ = try connection.scalarInt("PRAGMA max_page_count = \(pages)") }
    }
    try migrator.migrate(connection)
    ensureReserve()
  }

  /// Upper bound for the write-ahead log after a checkpoint (bytes): about one autocheckpoint's worth (1000 pages).
  static let walSizeLimitBytes = 4 << 20

  /// A WAL database on a read-only file system cannot get its -shm file; with an empty or missing WAL nothing
  /// can change it either, so it is read as immutable. (A non-empty WAL there cannot be read by SQLite.)
  private static func isOnReadOnlyMedium(_ path: String) -> Bool {
    var info = statvfs()
    guard statvfs(parentDirectory(of: path), &info) == 0 else { return false }
    return info.f_flag & UInt(ST_RDONLY) != 0
  }

  static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let directory = String(path[..<slash])
    return directory.isEmpty ? "/" : directory
  }
}

/// A synchronised (wall, monotonic) pair seen in one boot: maps that boot's monotonic times to wall times.
struct ClockAnchor: Equatable {
  var wall: Double
  var monotonic: Double

  func wall(atMonotonic monotonic: Double) -> Double {
    wall - (self.monotonic - monotonic)
  }
}
