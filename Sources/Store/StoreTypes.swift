import StressModel
import SyncWire

/// Where a row's wall time comes from. Stored as an integer (`clock_state`); see `StoreSchema`.
public enum ClockState: Int, Sendable, Codable, CaseIterable {
  /// The wall clock was synchronised when the row was measured.
  case synchronised = 0
  /// Measured before synchronisation; wall time since recomputed from the monotonic clock and the boot's
  /// synchronisation point: wall = sync_wall − (sync_monotonic − row_monotonic).
  case corrected = 1
  /// Measured before synchronisation in a boot that may still synchronise: not uploaded yet.
  case waiting = 2
  /// Its boot ended without the clock ever synchronising: the wall time is the board's guess. Kept and shown,
  /// never uploaded, never dropped by age (its age is unknown), only under disk-full pressure.
  case unresolved = 3

  /// Whether the wall time can be trusted (and the row uploaded).
  public var isKnown: Bool { self == .synchronised || self == .corrected }

  public var name: String {
    switch self {
    case .synchronised: "synchronised"
    case .corrected: "corrected"
    case .waiting: "waiting_for_clock"
    case .unresolved: "clock_unresolved"
    }
  }
}

/// One clean inter-beat interval, kept for later reanalysis (never uploaded).
public struct IBIRecord: Sendable, Equatable, Codable {
  /// Wall time of the beat that ends the interval, seconds since the Unix epoch.
  public var wall: Double
  /// CLOCK_BOOTTIME seconds of that beat.
  public var monotonic: Double
  public var bootId: String
  /// Whether `wall` came from a synchronised clock when measured.
  public var clockSynchronised: Bool
  /// The interval, milliseconds (sub-millisecond precision from the detector's peak interpolation).
  public var ibiMs: Double
  /// Contiguous run number: a gap (lost contact, FIFO overflow, restart) starts a new segment, so no interval is
  /// ever computed across one.
  public var segment: Int

  public init(wall: Double, monotonic: Double, bootId: String, clockSynchronised: Bool, ibiMs: Double, segment: Int) {
    self.wall = wall
    self.monotonic = monotonic
    self.bootId = bootId
    self.clockSynchronised = clockSynchronised
    self.ibiMs = ibiMs
    self.segment = segment
  }

  enum CodingKeys: String, CodingKey {
    case wall, monotonic, segment
    case bootId = "boot_id"
    case clockSynchronised = "clock_synchronised"
    case ibiMs = "ibi_ms"
  }
}

/// An IBI as stored: with its (possibly corrected) clock state.
public struct StoredIBI: Sendable, Equatable {
  public var ibi: IBIRecord
  public var clockState: ClockState

  public init(ibi: IBIRecord, clockState: ClockState) {
    self.ibi = ibi
    self.clockState = clockState
  }
}

/// Where a measurement stands with respect to the hub.
public enum UploadState: Sendable, Equatable {
  /// Clock known, not yet acknowledged by the hub (or changed since).
  case pending
  /// Measured before the clock synchronised in a boot that may still synchronise.
  case waitingForClock
  /// Its boot never synchronised: kept locally, never uploaded.
  case clockUnresolved
  case uploaded(at: Double)
  /// The hub refused it (4xx): kept with the reason, not retried by itself.
  case quarantined(reason: String, at: Double)

  /// A short name for CSV/JSON and the CLI.
  public var name: String {
    switch self {
    case .pending: "pending"
    case .waitingForClock: "waiting_for_clock"
    case .clockUnresolved: "clock_unresolved"
    case .uploaded: "uploaded"
    case .quarantined: "quarantined"
    }
  }
}

/// A measurement row with the store's bookkeeping next to it.
public struct StoredMeasurement: Sendable, Equatable {
  /// Exactly the shared row; `clockSynchronised` is true for synchronised and corrected rows.
  public var record: MeasurementRecord
  public var clockState: ClockState
  /// The wall time the board had at the window's end when it was measured (before any correction).
  public var recordedWindowEnd: Double
  public var upload: UploadState

  public init(record: MeasurementRecord, clockState: ClockState, recordedWindowEnd: Double, upload: UploadState) {
    self.record = record
    self.clockState = clockState
    self.recordedWindowEnd = recordedWindowEnd
    self.upload = upload
  }
}

/// Which measurements to read. Times are on `windowEnd`: `since` inclusive, `until` exclusive.
public struct MeasurementQuery: Sendable, Equatable {
  public var since: Double?
  public var until: Double?
  public var limit: Int?
  public var newestFirst: Bool

  public init(since: Double? = nil, until: Double? = nil, limit: Int? = nil, newestFirst: Bool = false) {
    self.since = since
    self.until = until
    self.limit = limit
    self.newestFirst = newestFirst
  }
}

/// Everything `stressmon doctor`, the daemon's health line and the tests want to know about the file.
public struct StoreStatus: Sendable, Equatable, Codable {
  public var path: String
  public var schemaVersion: Int
  public var measurements: Int
  public var ibis: Int
  public var outbox: OutboxStatus
  /// Rows whose boot ended without a synchronised clock (kept, never uploaded).
  public var clockUnresolved: Int
  public var uploaded: Int
  public var oldestWindowEnd: Double?
  public var newestWindowEnd: Double?
  /// Bytes in use inside the database file (pages minus free pages).
  public var usedBytes: Int64
  /// Size of the main file and of the write-ahead log on disk.
  public var fileBytes: Int64
  public var walBytes: Int64
  /// Not-yet-uploaded measurements deleted because the disk was full (kept count, never silent).
  public var droppedUnsyncedMeasurements: Int
  /// Rows deleted by retention (age or size), for the record.
  public var retiredMeasurements: Int
  public var retiredIBIs: Int

  enum CodingKeys: String, CodingKey {
    case path, measurements, ibis, outbox, uploaded
    case schemaVersion = "schema_version"
    case clockUnresolved = "clock_unresolved"
    case oldestWindowEnd = "oldest_window_end"
    case newestWindowEnd = "newest_window_end"
    case usedBytes = "used_bytes"
    case fileBytes = "file_bytes"
    case walBytes = "wal_bytes"
    case droppedUnsyncedMeasurements = "dropped_unsynced_measurements"
    case retiredMeasurements = "retired_measurements"
    case retiredIBIs = "retired_ibis"
  }
}

/// One entry of the baseline's history: a computation, or a reset by the user.
public struct BaselineHistoryEntry: Sendable, Equatable, Codable {
  public enum Event: String, Sendable, Codable { case computed, reset }
  public var event: Event
  /// When the entry was written (seconds since the Unix epoch).
  public var recordedAt: Double
  public var baseline: PersonalBaseline

  enum CodingKeys: String, CodingKey {
    case event, baseline
    case recordedAt = "recorded_at"
  }
}
