import Foundation

/// A thread of its own as a `TaskExecutor`: a task that prefers it (SE-0417), and its child tasks, run there and
/// not on Swift's cooperative pool, which the suite's CPU-bound and blocking tests can hold for minutes on two
/// cores. For code under test that must keep real-time promises (an MQTT client answering its keep-alive).
/// Locking: `jobs` and `stopping` only with `condition` locked.
public final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var stopping = false

  public init(name: String) {
    let thread = Thread { [self] in serve() }
    thread.name = name
    thread.start()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// Ends the thread once its queued jobs have run.
  public func shutdown() {
    condition.lock()
    stopping = true
    condition.signal()
    condition.unlock()
  }

  private func serve() {
    while true {
      condition.lock()
      while jobs.isEmpty && !stopping { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}

/// Runs blocking work (a child process to its end) on a thread of its own, off the cooperative pool.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}
