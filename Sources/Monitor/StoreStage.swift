import Dispatch
import Logging
import Store
import StressModel
import Synchronization
import SyncWire

/// The store side of the pipeline, on its own serial dispatch queue (a thread outside Swift's cooperative pool,
/// so a slow fsync or a locked database never blocks a task): windows and beat intervals are handed over
/// without waiting, appended to the `StoreWriter` (batched commits, never throws), `flushIfDue()` runs on a
/// one-second timer, and after each window the personal baseline is refreshed when due and handed back.
///
/// The hand-over buffer is bounded (`inboxLimit` rows); if the queue were stuck that long, the oldest rows are
/// dropped and counted (the writer itself buffers 12 h of windows while the disk fails, so this is a backstop).
public final class StoreStage: Sendable {
  // MARK: - Types

  /// What the store tells the rest of the pipeline.
  public struct Report: Sendable {
    public var health: StoreWriter.Health
    /// The baseline in the store (default until a personal one is computed); nil if the store cannot be read.
    public var baseline: PersonalBaseline?
    /// Good windows collected towards the personal baseline, while the default is in use.
    public var learning: (windows: Int, needed: Int)?
    /// Only when the stage was made with `reportsOutbox` (sync configured).
    public var outbox: OutboxStatus?
  }

  private struct Inbox {
    var writing = false
    var records: [MeasurementRecord] = []
    var ibis: [IBIRecord] = []
    var scheduled = false
    var closed = false
    var dropped = 0
  }

  // MARK: - Properties

  public let writer: StoreWriter
  public let path: String
  private let queue = DispatchQueue(label: "stressmon.store", qos: .utility)
  private let inbox = Mutex(Inbox())
  private let calculator: BaselineCalculator
  private let onReport: @Sendable (Report) -> Void
  /// The last report (store queue only; a Mutex because the class is Sendable).
  private let snapshot = Mutex(Report(health: StoreWriter.Health()))
  private let reportsOutbox: Bool
  private static let logger = Logger(label: "stressmon.monitor.store")

  /// Rows waiting for the store queue before the oldest are dropped (a day of windows, ~3 h of beats).
  public static let inboxLimit = 8_640
  /// How often the writer is asked whether a commit is due.
  public static let flushCheckSeconds = 1.0

  // MARK: - Initialization

  /// Opens the writer at `path` (never throws: a store that cannot be opened is a fault shown while measuring
  /// goes on, and is retried). `onReport` is called on the store queue when health, baseline or outbox change.
  public init(
    path: String, clock: any StoreClock, durability: MeasurementStore.Durability, flushSeconds: Double,
    retention: RetentionPolicy, calculator: BaselineCalculator = BaselineCalculator(), reportsOutbox: Bool = false,
    onReport: @escaping @Sendable (Report) -> Void
  ) {
    self.path = path
    self.reportsOutbox = reportsOutbox
    self.calculator = calculator
    self.onReport = onReport
    var options = MeasurementStore.Options()
    options.durability = durability
    writer = StoreWriter(
      path: path, clock: clock, options: options,
      policy: StoreWriter.Policy(maxDelaySeconds: flushSeconds, retention: retention))
  }

  // MARK: - Public

  /// The baseline in the file now (the default when there is none yet, or the store cannot be read).
  public func currentBaseline() -> PersonalBaseline {
    queue.sync {
      (try? writer.currentStore().currentBaseline()) ?? .default
    }
  }

  /// Starts the flush timer and reports the initial state (health, baseline progress).
  public func start() {
    queue.async { self.report(now: nil, windowsAdded: true) }
    scheduleTick()
  }

  /// Hands over rows without waiting.
  public func submit(records: [MeasurementRecord], ibis: [IBIRecord]) {
    guard !records.isEmpty || !ibis.isEmpty else { return }
    let schedule = inbox.withLock { inbox -> Bool in
      guard !inbox.closed else { return false }
      inbox.records.append(contentsOf: records)
      inbox.ibis.append(contentsOf: ibis)
      let extraRecords = inbox.records.count - Self.inboxLimit
      if extraRecords > 0 {
        inbox.records.removeFirst(extraRecords)
        inbox.dropped += extraRecords
      }
      let extraIBIs = inbox.ibis.count - Self.inboxLimit * 10
      if extraIBIs > 0 { inbox.ibis.removeFirst(extraIBIs) }
      defer { inbox.scheduled = true }
      return !inbox.scheduled
    }
    if schedule { queue.async { self.drain() } }
  }

  /// Rows handed over and not yet appended to the writer (the sampling loop waits on this at `--speed max`).
  public var backlog: Int { inbox.withLock { $0.records.count + $0.ibis.count / 50 } }

  /// Drains what is handed over, commits everything, checkpoints and closes. Returns the final health.
  public func close() async -> StoreWriter.Health {
    return await withCheckedContinuation { continuation in
      queue.async {
        self.drain()
        self.inbox.withLock { $0.closed = true }
        let health = self.writer.close()
        if health.bufferedMeasurements > 0 {
          Self.logger.error(
            "rows could not be written before exit", metadata: ["measurements": "\(health.bufferedMeasurements)",
                                                              "error": "\(health.errorMessage ?? "-")"])
        }
        continuation.resume(returning: health)
      }
    }
  }

  /// Whether the store queue is inside a write (an append that commits, a flush) right now.
  public var isWriting: Bool { inbox.withLock { $0.writing } }

  /// Rows dropped from the hand-over buffer (0 unless the store queue was stuck for a day).
  public var droppedRecords: Int { inbox.withLock { $0.dropped } }

  // MARK: - Private (store queue)

  private func drain() {
    let (records, ibis) = inbox.withLock { inbox -> ([MeasurementRecord], [IBIRecord]) in
      defer {
        inbox.records.removeAll(keepingCapacity: true)
        inbox.ibis.removeAll(keepingCapacity: true)
        inbox.scheduled = false
      }
      return (inbox.records, inbox.ibis)
    }
    inbox.withLock { $0.writing = true }
    if !ibis.isEmpty { writer.append(ibis) }
    for record in records { writer.append(record) }
    inbox.withLock { $0.writing = false }
    report(now: records.last?.windowEnd, windowsAdded: !records.isEmpty)
  }

  /// The flush timer: a re-armed one-shot on the store queue, so it never runs concurrently with a drain and stops
  /// by itself once the stage is closed.
  private func scheduleTick() {
    queue.asyncAfter(deadline: .now() + Self.flushCheckSeconds) { [weak self] in
      guard let self, !self.inbox.withLock({ $0.closed }) else { return }
      self.inbox.withLock { $0.writing = true }
      self.writer.flushIfDue()
      self.inbox.withLock { $0.writing = false }
      self.report(now: nil, windowsAdded: false)
      self.scheduleTick()
    }
  }

  /// Refreshes the baseline after new windows and reports what changed (only then: no callback per tick).
  private func report(now: Double?, windowsAdded: Bool) {
    var next = snapshot.withLock { $0 }
    next.health = writer.health
    if let store = try? writer.currentStore() {
      if windowsAdded, let now {
        do {
          if let refreshed = try store.refreshBaselineIfDue(calculator, now: now) { next.baseline = refreshed }
        } catch {
          Self.logger.warning("baseline refresh failed; keeping the current one", metadata: ["error": "\(error)"])
        }
      }
      if next.baseline == nil { next.baseline = try? store.currentBaseline() }
      if windowsAdded, let baseline = next.baseline, !baseline.isPersonal,
        let count = try? store.baselineWindowCount(calculator, now: now ?? Self.wallNow())
      {
        next.learning = (min(count, calculator.minimumWindows), calculator.minimumWindows)
      } else if next.baseline?.isPersonal == true {
        next.learning = nil
      }
      if reportsOutbox && (windowsAdded || next.health.lastCommitMonotonic != snapshotCommit()) {
        next.outbox = try? store.outboxStatus()
      }
    }
    let changed = snapshot.withLock { last -> Bool in
      defer { last = next }
      return last.health.errorCategory != next.health.errorCategory || last.baseline != next.baseline
        || last.learning?.windows != next.learning?.windows || last.outbox?.pending != next.outbox?.pending
        || last.health.lastCommitMonotonic == nil && next.health.lastCommitMonotonic != nil
    }
    if changed { onReport(next) }
  }

  private func snapshotCommit() -> Double? { snapshot.withLock { $0.health.lastCommitMonotonic } }

  static func wallNow() -> Double {
    SystemStoreClock(assumeSynchronised: true).reading().wall
  }
}

/// The store as the sync client's outbox: always the writer's current store (after a damaged file was moved
/// aside, the writer holds a new one and the old object refuses calls).
public struct WriterOutbox: SyncOutbox {
  public let writer: StoreWriter

  public init(writer: StoreWriter) {
    self.writer = writer
  }

  public func pendingUploads(limit: Int) throws -> [MeasurementRecord] {
    try writer.currentStore().pendingUploads(limit: limit)
  }

  public func markUploaded(ids: [String], at: Double) throws {
    try writer.currentStore().markUploaded(ids: ids, at: at)
  }

  public func quarantine(id: String, reason: String, at: Double) throws {
    try writer.currentStore().quarantine(id: id, reason: reason, at: at)
  }

  public func quarantined() throws -> [QuarantinedRow] {
    try writer.currentStore().quarantined()
  }

  @discardableResult
  public func releaseQuarantine(ids: [String]) throws -> Int {
    try writer.currentStore().releaseQuarantine(ids: ids)
  }

  public func outboxStatus() throws -> OutboxStatus {
    try writer.currentStore().outboxStatus()
  }
}
