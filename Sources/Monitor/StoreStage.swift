import Dispatch
import Logging
import Store
import StressModel
import Synchronization
import SyncWire

/// The store side of the pipeline, on its own serial dispatch queue (a thread outside Swift's cooperative pool,
/// so a slow fsync or a locked database never blocks a task): windows and beat intervals are handed over
/// without waiting, appended to the `StoreWriter` (batched commits, never throws), and after each window the
/// personal baseline is refreshed when due and handed back.
///
/// Nothing ticks: a window wakes the queue at once; beat intervals wait in the hand-over until their commit is due
/// (`flushSeconds` after the oldest), when one timer drains them and commits; the next timer is armed only while
/// something is buffered (`StoreWriter.nextFlushDue`, which also paces retries while the disk fails).
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
    /// When the oldest row in the hand-over arrived (store clock, monotonic seconds).
    var pendingSince: Double?
    var scheduled = false
    /// The armed timer's deadline (store clock) and generation: a timer whose generation is stale does nothing.
    var timerDeadline: Double?
    var timerGeneration = 0
    var closed = false
    var dropped = 0
    /// Windows handed over whose drain (append, baseline refresh, report) has not finished yet.
    var windowsInFlight = 0
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
  private let clock: any StoreClock
  private let flushSeconds: Double
  private static let logger = Logger(label: "stressmon.monitor.store")

  /// Rows waiting for the store queue before the oldest are dropped (a day of windows, ~3 h of beats).
  public static let inboxLimit = 8_640

  // MARK: - Initialization

  /// Opens the writer at `path` (never throws: a store that cannot be opened is a fault shown while measuring
  /// goes on, and is retried). `onReport` is called on the store queue when health, baseline or outbox change.
  public init(
    path: String, clock: any StoreClock, durability: MeasurementStore.Durability, flushSeconds: Double,
    retention: RetentionPolicy, calculator: BaselineCalculator = BaselineCalculator(), reportsOutbox: Bool = false,
    onReport: @escaping @Sendable (Report) -> Void
  ) {
    self.path = path
    self.clock = clock
    self.flushSeconds = flushSeconds
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

  /// Reports the initial state (health, baseline progress).
  public func start() {
    queue.async { self.report(now: nil, windowsAdded: true) }
  }

  /// Hands over rows without waiting. Windows are taken at once; beat intervals alone wait for their commit time.
  public func submit(records: [MeasurementRecord], ibis: [IBIRecord]) {
    guard !records.isEmpty || !ibis.isEmpty else { return }
    let now = clock.reading().monotonic
    let (drainNow, timer) = inbox.withLock { inbox -> (Bool, (deadline: Double, generation: Int)?) in
      guard !inbox.closed else { return (false, nil) }
      inbox.records.append(contentsOf: records)
      inbox.ibis.append(contentsOf: ibis)
      inbox.windowsInFlight += records.count
      if inbox.pendingSince == nil { inbox.pendingSince = now }
      let extraRecords = inbox.records.count - Self.inboxLimit
      if extraRecords > 0 {
        inbox.records.removeFirst(extraRecords)
        inbox.dropped += extraRecords
        inbox.windowsInFlight -= extraRecords
      }
      let extraIBIs = inbox.ibis.count - Self.inboxLimit * 10
      if extraIBIs > 0 { inbox.ibis.removeFirst(extraIBIs) }
      if !records.isEmpty {
        defer { inbox.scheduled = true }
        return (!inbox.scheduled, nil)
      }
      return (false, Self.armIfSooner(&inbox, at: inbox.pendingSince! + flushSeconds))
    }
    if drainNow { queue.async { self.drain() } }
    if let timer { arm(timer) }
  }

  /// Rows handed over and not yet appended to the writer (the sampling loop waits on this at `--speed max`).
  public var backlog: Int { inbox.withLock { $0.records.count + $0.ibis.count / 50 } }

  /// Windows handed over that the store has not yet appended and scored the baseline for. `--speed max` waits for
  /// 0 before the next block, so a personal baseline takes over at the same point of the data however busy the
  /// machine is (the replay equals `analyze` and itself, run after run).
  public var windowsInFlight: Int { inbox.withLock { $0.windowsInFlight } }

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
    let (records, ibis, since) = inbox.withLock { inbox -> ([MeasurementRecord], [IBIRecord], Double?) in
      defer {
        inbox.records.removeAll(keepingCapacity: true)
        inbox.ibis.removeAll(keepingCapacity: true)
        inbox.pendingSince = nil
        inbox.scheduled = false
      }
      return (inbox.records, inbox.ibis, inbox.pendingSince)
    }
    inbox.withLock { $0.writing = true }
    if !ibis.isEmpty { writer.append(ibis, since: since) }
    for record in records { writer.append(record, since: since) }
    inbox.withLock { $0.writing = false }
    report(now: records.last?.windowEnd, windowsAdded: !records.isEmpty)
    inbox.withLock { $0.windowsInFlight -= records.count }
    armForWriter()
  }

  /// The commit timer fired: take what waits in the hand-over, commit what is due, and arm the next one only if
  /// something is still buffered.
  private func timerFired(generation: Int) {
    let current = inbox.withLock { inbox -> Bool in
      guard !inbox.closed, inbox.timerGeneration == generation else { return false }
      inbox.timerDeadline = nil
      return true
    }
    guard current else { return }
    drain()
    inbox.withLock { $0.writing = true }
    writer.flushIfDue()
    inbox.withLock { $0.writing = false }
    report(now: nil, windowsAdded: false)
    armForWriter()
  }

  /// Arms the timer for the writer's next commit or retry (store queue).
  private func armForWriter() {
    guard let due = writer.nextFlushDue else { return }
    if let timer = inbox.withLock({ inbox in Self.armIfSooner(&inbox, at: due) }) { arm(timer) }
  }

  /// A new timer for `deadline` unless one at or before it is armed (the later one is then stale).
  private static func armIfSooner(_ inbox: inout Inbox, at deadline: Double) -> (deadline: Double, generation: Int)? {
    guard !inbox.closed else { return nil }
    if let armed = inbox.timerDeadline, armed <= deadline { return nil }
    inbox.timerGeneration += 1
    inbox.timerDeadline = deadline
    return (deadline, inbox.timerGeneration)
  }

  private func arm(_ timer: (deadline: Double, generation: Int)) {
    let delay = max(0, timer.deadline - clock.reading().monotonic)
    queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.timerFired(generation: timer.generation) }
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
        || last.health.droppedForSpace != next.health.droppedForSpace
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
