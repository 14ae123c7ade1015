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

  /// Returns at the next ring (at once if one came since the last wait), at `deadline` (monotonic nanoseconds;
  /// nil: none), or when the task is cancelled.
  func wait(untilNanoseconds deadline: UInt64?) async {
    if state.withLock({ state in defer { state.rung = false }; return state.rung }) { return }
    guard let deadline else { return await waitForRing() }
    let now = monotonicNanoseconds()
    guard deadline > now else { return }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.waitForRing() }
      group.addTask { try? await Task.sleep(nanoseconds: deadline - now) }
      await group.next()
      group.cancelAll()
    }
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
