import FoundationEssentials
import Logging
import Platform
import Synchronization
import SyncWire

/// The daemon's way into the store: buffers rows in memory and writes them in short batched transactions, and
/// never lets a storage failure stop the measuring.
///
/// - Batching: a flush happens when the oldest buffered row is `maxDelaySeconds` old (by the monotonic clock)
///   or `maxBufferedRows` are waiting, so an SD card sees one commit every couple of seconds, not one per beat.
/// - Failures: `append` never throws. When the store cannot be written (disk full, read-only file system,
///   damaged file, I/O error) the rows stay in memory up to a bound and are retried; `health` says what is
///   wrong so the daemon can show it next to the category. Disk full triggers `makeRoom`; a damaged file is
///   moved aside (kept for recovery) and a fresh one started, when `moveAsideCorrupt` is set.
///
/// Thread safety: all state lives in a `Mutex`; a flush holds it while writing, so appends from other tasks wait
/// for at most one short transaction.
public final class StoreWriter: Sendable {
  // MARK: - Properties

  public let path: String
  private let clock: any StoreClock
  private let options: MeasurementStore.Options
  private let policy: Policy
  private let state: Mutex<WriterState>
  private static let logger = Logger(label: "stressmon.store")

  // MARK: - Initialization

  /// Opens the store at `path`. Never throws: if it cannot be opened, the writer starts buffering and reports
  /// the reason in `health`, and tries again later.
  public init(path: String, clock: any StoreClock, options: MeasurementStore.Options = .init(), policy: Policy = .init()) {
    self.path = path
    self.clock = clock
    self.options = options
    self.policy = policy
    state = Mutex(WriterState())
    state.withLock { state in
      let reading = clock.reading()
      openStore(&state, reading: reading)
      if let store = state.store {
        do throws(StoreError) {
          try store.observeClock(reading)
        } catch {
          outcome(&state, error, reading: reading)
        }
      }
    }
  }

  // MARK: - Public

  /// Buffers one window result; commits if a flush is due. Returns the health after it. `since`: when the row
  /// was produced (monotonic seconds of the writer's clock), if it waited in a hand-over before; default now.
  @discardableResult
  public func append(_ record: MeasurementRecord, since: Double? = nil) -> Health {
    state.withLock { state in
      guard !record.id.isEmpty, record.windowEnd.isFinite, record.monotonicEnd.isFinite else {
        Self.logger.error("dropped a measurement with an empty id or non-finite time", metadata: ["id": "\(record.id)"])
        return state.snapshot
      }
      let wall = clock.reading().wall
      if max(record.windowEnd, record.modifiedAt) > wall + Self.clockToleranceSeconds {
        state.health.aheadOfClock += 1
        if state.health.aheadOfClock == 1 {
          Self.logger.error(
            "a measurement is stamped after the clock's now: its times are wrong",
            metadata: ["id": "\(record.id)", "ahead_s": "\(Int(max(record.windowEnd, record.modifiedAt) - wall))"])
        }
      }
      noteBuffered(&state, since: since)
      state.measurements.append(record)
      return flush(&state, force: false)
    }
  }

  /// Buffers clean IBIs; commits if a flush is due. `since` as for a measurement.
  @discardableResult
  public func append(_ ibis: [IBIRecord], since: Double? = nil) -> Health {
    state.withLock { state in
      let valid = ibis.filter { $0.wall.isFinite && $0.monotonic.isFinite && $0.ibiMs.isFinite }
      guard !valid.isEmpty else { return state.snapshot }
      if let latest = valid.map(\.wall).max(), latest > clock.reading().wall + Self.clockToleranceSeconds {
        state.health.aheadOfClock += valid.count
        Self.logger.error("beat intervals are stamped after the clock's now: their times are wrong")
      }
      noteBuffered(&state, since: since)
      state.ibis.append(contentsOf: valid)
      return flush(&state, force: false)
    }
  }

  /// When `flushIfDue()` will next have something to do (monotonic seconds of the writer's clock): the oldest
  /// buffered row's deadline, or the next retry while the store fails; nil when nothing is buffered. A caller
  /// that arms its timer for this instant, rather than ticking, wakes only when there is work.
  public var nextFlushDue: Double? {
    state.withLock { state in
      guard !state.measurements.isEmpty || !state.ibis.isEmpty, let oldest = state.oldestBuffered else { return nil }
      let due = oldest + policy.maxDelaySeconds
      guard state.health.failingSince != nil, let last = state.lastAttempt else { return due }
      return max(due, last + policy.retryIntervalSeconds)
    }
  }

  /// Commits if the oldest buffered row has waited long enough; call it from a timer so a lull in beats (finger
  /// off the sensor) does not hold rows back.
  @discardableResult
  public func flushIfDue() -> Health {
    state.withLock { state in flush(&state, force: false) }
  }

  /// Commits everything buffered now (shutdown, tests). Returns the health after it.
  @discardableResult
  public func flush() -> Health {
    state.withLock { state in flush(&state, force: true) }
  }

  public var health: Health {
    state.withLock { $0.snapshot }
  }

  /// The open store, for the outbox, the baseline and reads. Ask again each time: after a damaged file was moved
  /// aside the writer holds a new one, and the old object throws `StoreError.closed`.
  public func currentStore() throws(StoreError) -> MeasurementStore {
    try state.withLock { state throws(StoreError) -> MeasurementStore in
      // After `close()` nothing opens the file again (a late outbox call during shutdown).
      guard !state.closed else { throw StoreError.closed(path: path) }
      if state.store == nil { openStore(&state, reading: clock.reading()) }
      guard let store = state.store else {
        throw StoreError.cannotOpen(path: path, reason: state.health.errorMessage ?? "not open")
      }
      return store
    }
  }

  /// Final flush, checkpoint and close. Rows that still cannot be written are reported in the returned health,
  /// and so is how many of this writer's rows the file still holds (`keptMeasurements`).
  @discardableResult
  public func close() -> Health {
    state.withLock { state in
      var health = flush(&state, force: true)
      if let store = state.store, let base = state.baseSequence,
        let kept = try? store.measurementCount(afterSequence: base)
      {
        health.keptMeasurements = min(kept, health.committedMeasurements)
      }
      try? state.store?.checkpoint()
      state.store?.close()
      state.store = nil
      state.closed = true
      return health
    }
  }

  // MARK: - Private

  /// The first row into an empty buffer starts its clock (at `since` if it was produced earlier).
  private func noteBuffered(_ state: inout WriterState, since: Double?) {
    let now = clock.reading().monotonic
    guard state.measurements.isEmpty && state.ibis.isEmpty else {
      if let since, let oldest = state.oldestBuffered { state.oldestBuffered = min(oldest, since) }
      return
    }
    state.oldestBuffered = min(now, since ?? now)
  }

  private func flush(_ state: inout WriterState, force: Bool) -> Health {
    let reading = clock.reading()
    let count = state.measurements.count + state.ibis.count
    guard count > 0 else { return state.snapshot }
    let age = reading.monotonic - (state.oldestBuffered ?? reading.monotonic)
    guard force || age >= policy.maxDelaySeconds || count >= policy.maxBufferedRows else { return state.snapshot }
    if !force, state.health.failingSince != nil, let last = state.lastAttempt,
      reading.monotonic - last < policy.retryIntervalSeconds
    {
      enforceMemoryLimit(&state)
      return state.snapshot
    }
    state.lastAttempt = reading.monotonic
    if state.store == nil { openStore(&state, reading: reading) }
    var committed = false
    if let store = state.store {
      do throws(StoreError) {
        try writeBuffered(&state, store: store, reading: reading)
        committed = true
        outcome(&state, nil, reading: reading)
      } catch {
        outcome(&state, error, reading: reading)
      }
    }
    if committed {
      state.health.lastCommitMonotonic = reading.monotonic
      state.oldestBuffered = nil
      runRetentionIfDue(&state, reading: reading)
    } else {
      enforceMemoryLimit(&state)
    }
    return state.snapshot
  }

  /// Writes the buffer oldest first in bounded transactions (so catching up after an outage never needs one
  /// huge transaction), with the recoveries that make sense: make room when the disk is full, start a fresh file
  /// when this one is damaged. Committed parts leave the buffer at once; other failures propagate with the rest
  /// still buffered.
  private func writeBuffered(_ state: inout WriterState, store: MeasurementStore, reading: ClockReading) throws(StoreError) {
    var store = store
    while !state.measurements.isEmpty || !state.ibis.isEmpty {
      let records = Array(state.measurements.prefix(Self.chunkMeasurements))
      let ibis = Array(state.ibis.prefix(Self.chunkIBIs))
      let bytes = Int64(records.count * 512 + ibis.count * 64)
      do {
        if let report = try store.ensureRoom(forBytes: bytes, headroomBytes: Self.headroomBytes) {
          state.health.droppedForSpace += report.droppedUnsyncedMeasurements
        }
        try store.write(records, ibis: ibis, clock: reading)
      } catch .diskFull {
        try writeMakingRoom(&state, store: store, records: records, ibis: ibis, bytes: bytes, reading: reading)
      } catch .corrupt(let path, let detail) where policy.moveAsideCorrupt {
        Self.logger.error("database damaged: moving it aside", metadata: ["path": "\(path)", "detail": "\(detail)"])
        store.close()
        state.store = nil
        try moveAside(&state, reading: reading)
        state.baseSequence = 0
        openStore(&state, reading: reading)
        guard let fresh = state.store else { throw StoreError.corrupt(path: path, detail: detail) }
        store = fresh
        try store.write(records, ibis: ibis, clock: reading)
      }
      state.measurements.removeFirst(records.count)
      state.ibis.removeFirst(ibis.count)
      state.health.committedMeasurements += records.count
      state.health.committedIBIs += ibis.count
    }
  }

  /// The write failed for want of space: frees room step by step (`makeRoom`: the reserve, beats, uploaded windows,
  /// and only then the oldest windows not yet uploaded, as few as the write needs) and retries, until the write
  /// fits or nothing more can be freed (then `diskFull` propagates and the rows stay buffered).
  private func writeMakingRoom(
    _ state: inout WriterState, store: MeasurementStore, records: [MeasurementRecord], ibis: [IBIRecord], bytes: Int64,
    reading: ClockReading
  ) throws(StoreError) {
    var needed = bytes
    while true {
      let report = try store.makeRoom(bytes: needed, headroomBytes: Self.headroomBytes)
      state.health.droppedForSpace += report.droppedUnsyncedMeasurements
      do {
        try store.write(records, ibis: ibis, clock: reading)
        return
      } catch .diskFull(let path) {
        // Free pages inside the file are not always where the write needs them (its WAL frames, a new index
        // page): ask for more, as long as something was freed.
        guard report.freedAnything else { throw .diskFull(path: path) }
        needed *= 2
      }
    }
  }

  /// Rows per transaction when the buffer is written: about 60 KB of pages at most.
  private static let chunkMeasurements = 100
  private static let chunkIBIs = 1_000

  /// Room to free on disk full beyond the chunk itself, from beats and uploaded rows only: a few minutes of rows,
  /// so the next commits fit too.
  private static let headroomBytes: Int64 = 64 << 10

  /// How far a row may be stamped after the writer's clock reading before it counts as ahead of the clock.
  private static let clockToleranceSeconds = 1.0

  private func openStore(_ state: inout WriterState, reading: ClockReading) {
    do {
      state.store = try MeasurementStore(path: path, options: options)
    } catch .corrupt(let path, let detail) where policy.moveAsideCorrupt {
      Self.logger.error("database damaged at open: moving it aside", metadata: ["path": "\(path)", "detail": "\(detail)"])
      do {
        try moveAside(&state, reading: reading)
        state.store = try MeasurementStore(path: path, options: options)
        state.baseSequence = 0
      } catch {
        noteFailure(&state, error, reading: reading)
      }
    } catch {
      noteFailure(&state, error, reading: reading)
    }
    if state.baseSequence == nil, let store = state.store { state.baseSequence = try? store.newestSequence() }
  }

  /// Renames the database and its WAL/SHM files to `<db>.corrupt-<unix seconds>…`: nothing is deleted.
  private func moveAside(_ state: inout WriterState, reading: ClockReading) throws(StoreError) {
    let target = path + ".corrupt-\(Int(reading.wall))"
    for suffix in ["", "-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
      guard rename(path + suffix, target + suffix) == 0 else {
        throw StoreError.cannotOpen(path: path, reason: "cannot move the damaged file aside: \(StoreError.errnoText(errno))")
      }
    }
    state.health.movedAside.append(target)
    Self.logger.error("damaged database moved aside; starting a new one", metadata: ["kept_as": "\(target)"])
  }

  /// Records the outcome of a store call in `health` (logging only when the state changes). After a read-only
  /// or I/O failure the connection is dropped so that the next attempt reopens the file (e.g. after a remount).
  private func outcome(_ state: inout WriterState, _ error: StoreError?, reading: ClockReading) {
    guard let error else {
      if let category = state.health.errorCategory {
        Self.logger.notice(
          "store writable again", metadata: ["was": "\(category)", "buffered": "\(state.measurements.count + state.ibis.count)"])
      }
      state.health.errorCategory = nil
      state.health.errorMessage = nil
      state.health.failingSince = nil
      return
    }
    noteFailure(&state, error, reading: reading)
    switch error {
    case .readOnly, .io, .cannotOpen: closeForReopen(&state)
    default: break
    }
  }

  /// Drops the connection so the next attempt reopens the file (e.g. after a remount read-write).
  private func closeForReopen(_ state: inout WriterState) {
    state.store?.close()
    state.store = nil
  }

  private func noteFailure(_ state: inout WriterState, _ error: StoreError, reading: ClockReading) {
    if state.health.errorCategory != error.category {
      Self.logger.error(
        "store write failed; keeping rows in memory", metadata: ["error": "\(error.category)", "detail": "\(error)"])
    }
    state.health.errorCategory = error.category
    state.health.errorMessage = error.description
    if state.health.failingSince == nil { state.health.failingSince = reading.monotonic }
  }

  private func enforceMemoryLimit(_ state: inout WriterState) {
    let extraIBIs = state.ibis.count - policy.memoryLimitIBIs
    if extraIBIs > 0 {
      state.ibis.removeFirst(extraIBIs)
      state.health.droppedIBIs += extraIBIs
    }
    let extraMeasurements = state.measurements.count - policy.memoryLimitMeasurements
    if extraMeasurements > 0 {
      state.measurements.removeFirst(extraMeasurements)
      state.health.droppedMeasurements += extraMeasurements
      Self.logger.error(
        "store unavailable too long: dropped the oldest buffered measurements",
        metadata: ["dropped_total": "\(state.health.droppedMeasurements)"])
    }
  }

  private func runRetentionIfDue(_ state: inout WriterState, reading: ClockReading) {
    guard let store = state.store else { return }
    if let last = state.lastRetention, reading.monotonic - last < policy.retentionIntervalSeconds { return }
    state.lastRetention = reading.monotonic
    do {
      try store.applyRetention(policy.retention, clock: reading)
    } catch {
      Self.logger.warning("retention pass failed; will retry", metadata: ["error": "\(error)"])
    }
  }
}

/// The writer's mutable state, only touched under its lock.
private struct WriterState: ~Copyable {
  var store: MeasurementStore?
  var measurements: [MeasurementRecord] = []
  var ibis: [IBIRecord] = []
  var oldestBuffered: Double?
  var lastAttempt: Double?
  var lastRetention: Double?
  /// The newest row number when this writer first opened the file: its own rows are numbered above it.
  var baseSequence: Int64?
  var closed = false
  var health = StoreWriter.Health()

  /// The health with the buffer counts as they are now.
  var snapshot: StoreWriter.Health {
    var health = health
    health.bufferedMeasurements = measurements.count
    health.bufferedIBIs = ibis.count
    return health
  }
}
