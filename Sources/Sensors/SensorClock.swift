import Platform
import Synchronization

/// Monotonic time for sensors, injected so that tests and the simulated board can run on a virtual clock.
/// Times are nanoseconds from an arbitrary origin.
public protocol SensorClock: Sendable {
  /// The current time in nanoseconds.
  func now() -> Int64
  /// Suspends until `deadline`; returns at once when it has passed. Throws `CancellationError` when cancelled.
  func sleep(until deadline: Int64) async throws
}

extension SensorClock {
  /// Suspends for `nanoseconds` from now.
  public func sleep(nanoseconds: Int64) async throws { try await sleep(until: now() + nanoseconds) }
}

/// The system's monotonic clock (CLOCK_MONOTONIC) and real sleeps.
public struct SystemClock: SensorClock {
  public init() {}

  public func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  public func sleep(until deadline: Int64) async throws {
    let remaining = deadline - now()
    guard remaining > 0 else {
      try Task.checkCancellation()
      return
    }
    try await Task.sleep(nanoseconds: UInt64(remaining))
  }
}

/// A clock that moves only when told to: `advance(by:)`, or a `sleep`, which jumps straight to its deadline.
/// Code that sleeps on it runs as fast as the CPU allows while seeing the same timeline as in real time: the
/// emulator produces samples by this clock, so a whole recording can be captured in a fraction of its length.
/// Thread-safe (the time is behind a mutex).
public final class VirtualClock: SensorClock {
  private let time: Mutex<Int64>

  public init(start: Int64 = 0) { time = Mutex(start) }

  public func now() -> Int64 { time.withLock { $0 } }

  /// Moves the clock forward (never back).
  public func advance(by nanoseconds: Int64) {
    time.withLock { $0 += max(0, nanoseconds) }
  }

  /// Moves the clock to `deadline` if that is later than now.
  public func advance(to deadline: Int64) {
    time.withLock { $0 = max($0, deadline) }
  }

  public func sleep(until deadline: Int64) async throws {
    try Task.checkCancellation()
    advance(to: deadline)
    // Let other tasks run, as a real sleep would.
    await Task.yield()
  }
}

/// Nanoseconds per second, for conversions.
let nanosecondsPerSecond: Int64 = 1_000_000_000
