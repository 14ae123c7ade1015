import Platform

/// A thread of its own for the sampling loop: a `TaskExecutor` the sampling task prefers, so that the loop and the
/// source actor it calls (default actors follow the task's executor preference, SE-0417) never wait behind other
/// work on Swift's cooperative pool — a panel frame being rendered and PNG-encoded, JSON for the terminal, a
/// 24-hour replay in another test. The MAX30102's FIFO holds 320 ms at 100 samples/s; this keeps that budget for
/// the loop alone.
///
/// Locking: `jobs` and `stopping` are only touched with `mutex` held; `changed` is signalled on every change.
public final class SamplingThread: TaskExecutor, @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var jobs: [UnownedJob] = []
  private var stopping = false
  private var thread: pthread_t?

  public init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
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

  /// Runs what is queued, then ends the thread and waits for it. Call once the sampling task has finished.
  public func shutdown() {
    pthread_mutex_lock(mutex)
    stopping = true
    pthread_cond_signal(changed)
    pthread_mutex_unlock(mutex)
    if let running = thread {
      pthread_join(running, nil)
      thread = nil
    }
  }

  private func serve() {
    var batch: [UnownedJob] = []
    while true {
      pthread_mutex_lock(mutex)
      while jobs.isEmpty && !stopping { pthread_cond_wait(changed, mutex) }
      if jobs.isEmpty && stopping {
        pthread_mutex_unlock(mutex)
        return
      }
      swap(&batch, &jobs)
      pthread_mutex_unlock(mutex)
      for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
      batch.removeAll(keepingCapacity: true)
    }
  }
}
