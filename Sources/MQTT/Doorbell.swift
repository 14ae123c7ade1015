import NIOCore
import Platform
import Synchronization

/// Wakes the client's one waiting task: a new value to publish, an acknowledgement read, the connection lost, or
/// a stop. A ring while nobody waits is kept (once), so no change is missed between a check and the wait.
/// Locking: one `Mutex` holds the flag and the waiting continuation, resumed after the lock is released.
final class Doorbell: Sendable {
  private struct State {
    var rung = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Mutex(State())

  func ring() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard let waiter = state.waiter else {
        state.rung = true
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  /// Returns at the next ring (at once if one came since the last wait), at `deadline` (monotonic nanoseconds, as
  /// NIO's `uptimeNanoseconds`; nil: none), or when the task is cancelled. The deadline is a timer on `eventLoop`,
  /// cancelled when the wait ends sooner: a cancelled `Task.sleep` would stay queued until its deadline, and a
  /// wait that ends at each published state would pile those up.
  func wait(untilNanoseconds deadline: UInt64?, on eventLoop: any EventLoop) async {
    if state.withLock({ state in defer { state.rung = false }; return state.rung }) { return }
    guard let deadline else { return await waitForRing() }
    guard deadline > monotonicNanoseconds() else { return }
    let timer = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(deadline)) { self.ring() }
    await waitForRing()
    timer.cancel()
  }

  private func waitForRing() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state -> Bool in
          if state.rung || Task.isCancelled {
            state.rung = false
            return true
          }
          state.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }
}

/// CLOCK_MONOTONIC in nanoseconds: the client's timers (keep-alive, answer timeouts, reconnect delays).
func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
