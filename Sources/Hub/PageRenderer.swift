import Foundation
import NIOPosix
import Synchronization

/// Runs the pages' heavy work (decoding a day's rows, drawing its report, building a fleet page) on threads of
/// its own, off Swift's cooperative pool where every request handler runs: a day of 100 000 rows once held a
/// pool thread for seconds, and with two of them on a two-core machine `/healthz` waited. The threads run at a
/// lower priority (nice), so the event loops and ingest go first, and only `capacity` jobs may wait at once:
/// past that a page is answered 503 with `Retry-After` instead of queueing memory without bound.
final class PageRenderer: Sendable {
  /// Niceness of the render threads (Linux: per thread), below the hub's other threads.
  static let niceness: Int32 = 10

  private let pool: NIOThreadPool
  private let waiting = Atomic<Int>(0)
  let capacity: Int

  init(threads: Int = 1, capacity: Int = 8) {
    pool = NIOThreadPool(numberOfThreads: max(1, threads))
    self.capacity = max(1, capacity)
    pool.start()
  }

  deinit {
    pool.shutdownGracefully { _ in }
  }

  /// `body` on a render thread; 503 `busy` when `capacity` jobs are already waiting or running.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let admitted = waiting.add(1, ordering: .relaxed).newValue
    defer { waiting.subtract(1, ordering: .relaxed) }
    guard admitted <= capacity else {
      throw HubError(
        .serviceUnavailable, "busy", "the hub is drawing other pages; retry in a few seconds",
        headers: [.retryAfter: "2"])
    }
    return try await pool.runIfActive {
      Self.lowerPriority()
      return try body()
    }
  }

  /// How many jobs are waiting or running (tests).
  var load: Int { waiting.load(ordering: .relaxed) }

  /// Lowers this thread's priority once. Under Linux/NPTL the nice value is a per-thread attribute, so
  /// `setpriority(PRIO_PROCESS, 0, …)` changes the calling thread's only (setpriority(2), NOTES).
  private static func lowerPriority() {
    #if os(Linux)
      let which = __priority_which_t(PRIO_PROCESS.rawValue)
      if getpriority(which, 0) < niceness { _ = setpriority(which, 0, niceness) }
    #endif
  }
}
