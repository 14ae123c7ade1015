import CLinuxShim
import Platform
import Sensors

/// A thread of its own for the sampling loop: a `TaskExecutor` the sampling task prefers, so that the loop and the
/// source actor it calls (default actors follow the task's executor preference, SE-0417) never wait behind other
/// work on Swift's cooperative pool — a panel frame being rendered and PNG-encoded, JSON for the terminal, a
/// 24-hour replay in another test. The MAX30102's FIFO holds 320 ms at 100 samples/s; this keeps that budget for
/// the loop alone.
///
/// It also keeps its own timers (`sleep(untilMonotonic:)`): the thread waits on its condition variable until the
/// next deadline (CLOCK_MONOTONIC), so a FIFO poll costs one wake-up of this thread. `Task.sleep` would wake a
/// Dispatch timer thread and a worker first, then this thread: three wake-ups per poll.
///
/// Locking: `jobs`, `timers`, `nextTimerID` and `stopping` are only touched with `mutex` held; `changed` is
/// signalled on every change.
public final class SamplingThread: TaskExecutor, @unchecked Sendable {
  private struct Timer {
    var deadline: Int64
    var id: UInt64
    var continuation: CheckedContinuation<Void, any Error>
  }

  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var jobs: [UnownedJob] = []
  private var timers: [Timer] = []
  private var nextTimerID: UInt64 = 0
  private var stopping = false
  private var thread: pthread_t?

  public init() {
    pthread_mutex_init(mutex, nil)
    var attributes = pthread_condattr_t()
    pthread_condattr_init(&attributes)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
    pthread_cond_init(changed, &attributes)
    pthread_condattr_destroy(&attributes)
    let context = Unmanaged.passUnretained(self).toOpaque()
    var created = pthread_t()
    let status = pthread_create(&created, nil, { context in
      Unmanaged<SamplingThread>.fromOpaque(context!).takeUnretainedValue().serve()
      return nil
    }, context)
    if status == 0 { thread = created }
  }

  deinit {
    shutdown()
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    pthread_mutex_lock(mutex)
    jobs.append(job)
    pthread_cond_signal(changed)
    pthread_mutex_unlock(mutex)
  }

  /// Suspends the calling task until CLOCK_MONOTONIC reaches `deadline` (nanoseconds), on this thread's own timer.
  /// Throws `CancellationError` when the task is cancelled (at once, not at the deadline).
  public func sleep(untilMonotonic deadline: Int64) async throws {
    try Task.checkCancellation()
    pthread_mutex_lock(mutex)
    nextTimerID += 1
    let id = nextTimerID
    pthread_mutex_unlock(mutex)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        pthread_mutex_lock(mutex)
        let alreadyCancelled = Task.isCancelled || stopping
        if !alreadyCancelled {
          timers.append(Timer(deadline: deadline, id: id, continuation: continuation))
          pthread_cond_signal(changed)
        }
        pthread_mutex_unlock(mutex)
        if alreadyCancelled { continuation.resume(throwing: CancellationError()) }
      }
    } onCancel: {
      pthread_mutex_lock(mutex)
      let index = timers.firstIndex { $0.id == id }
      let timer = index.map { timers.remove(at: $0) }
      pthread_mutex_unlock(mutex)
      timer?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Runs what is queued, then ends the thread and waits for it. Call once the sampling task has finished. Timers
  /// still waiting end with `CancellationError`.
  public func shutdown() {
    pthread_mutex_lock(mutex)
    stopping = true
    let pending = timers
    timers.removeAll()
    pthread_cond_signal(changed)
    pthread_mutex_unlock(mutex)
    for timer in pending { timer.continuation.resume(throwing: CancellationError()) }
    if let running = thread {
      pthread_join(running, nil)
      thread = nil
    }
  }

  // MARK: - Private

  private func serve() {
    // Named for `top -H` and /proc/PID/task/*/comm (it would inherit its creator's name, a Dispatch worker's).
    _ = stressmon_name_thread("stressmon-sampl")
    var batch: [UnownedJob] = []
    var due: [CheckedContinuation<Void, any Error>] = []
    while true {
      pthread_mutex_lock(mutex)
      while jobs.isEmpty && !stopping {
        guard let earliest = timers.map(\.deadline).min() else {
          pthread_cond_wait(changed, mutex)
          continue
        }
        if earliest <= PacedClock.monotonicNanoseconds() { break }
        var until = timespec(tv_sec: Int(earliest / 1_000_000_000), tv_nsec: Int(earliest % 1_000_000_000))
        pthread_cond_timedwait(changed, mutex, &until)
        if PacedClock.monotonicNanoseconds() >= earliest { break }
      }
      if jobs.isEmpty && stopping {
        pthread_mutex_unlock(mutex)
        return
      }
      let now = PacedClock.monotonicNanoseconds()
      if timers.contains(where: { $0.deadline <= now }) {
        due = timers.filter { $0.deadline <= now }.map(\.continuation)
        timers.removeAll { $0.deadline <= now }
      }
      swap(&batch, &jobs)
      pthread_mutex_unlock(mutex)
      // A resumed sleeper's task prefers this executor: its job lands in `jobs` and runs in the next round,
      // without another wake-up.
      for continuation in due { continuation.resume() }
      due.removeAll(keepingCapacity: true)
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
      batch.removeAll(keepingCapacity: true)
    }
  }
}

/// The sensor's clock on a paced run, with its sleeps on the sampling thread's own timer (see `SamplingThread`):
/// the same time as the run's `PacedClock` (so the emulated sensor, the LEDs and the panel share one timeline).
final class SamplingThreadClock: SensorClock {
  let paced: PacedClock
  let thread: SamplingThread

  init(paced: PacedClock, thread: SamplingThread) {
    self.paced = paced
    self.thread = thread
  }

  func now() -> Int64 { paced.now() }

  func sleep(until deadline: Int64) async throws {
    guard deadline > paced.now() else {
      try Task.checkCancellation()
      return
    }
    try await thread.sleep(untilMonotonic: paced.monotonicNanoseconds(atClock: deadline))
  }
}
