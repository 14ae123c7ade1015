import Synchronization

/// Monotonic time in milliseconds, injected into everything that waits (LED scheduler, panel BUSY polling), so
/// tests and the simulated board run on virtual time and assert exact timelines.
public protocol IndicatorClock: Sendable {
  /// Milliseconds since an arbitrary fixed origin; never goes backwards.
  func nowMilliseconds() -> Int64
  /// Suspends until `nowMilliseconds() >= deadline`. Throws `CancellationError` when the task is cancelled.
  func sleep(untilMilliseconds deadline: Int64) async throws
}

extension IndicatorClock {
  /// Suspends for `milliseconds` from now.
  public func sleep(milliseconds: Int64) async throws {
    try await sleep(untilMilliseconds: nowMilliseconds() + milliseconds)
  }
}

/// The real clock: Swift's `ContinuousClock` (CLOCK_MONOTONIC-based, unaffected by NTP steps).
public struct SystemIndicatorClock: IndicatorClock {
  private let origin = ContinuousClock.now

  public init() {}

  public func nowMilliseconds() -> Int64 {
    let elapsed = ContinuousClock.now - origin
    return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
  }

  public func sleep(untilMilliseconds deadline: Int64) async throws {
    let remaining = deadline - nowMilliseconds()
    if remaining > 0 { try await Task.sleep(for: .milliseconds(remaining)) }
  }
}

/// Virtual time for tests and for the simulated board at full speed: `sleep` jumps the clock forward instead of
/// waiting, so a 10 s breathing cycle or a 3 s panel refresh takes no wall time and happens at exact instants.
public final class VirtualIndicatorClock: IndicatorClock {
  private let now: Mutex<Int64>

  public init(startMilliseconds: Int64 = 0) {
    now = Mutex(startMilliseconds)
  }

  public func nowMilliseconds() -> Int64 { now.withLock { $0 } }

  public func sleep(untilMilliseconds deadline: Int64) async throws {
    try Task.checkCancellation()
    now.withLock { $0 = max($0, deadline) }
  }

  /// Moves time forward by `milliseconds` (never backwards).
  public func advance(by milliseconds: Int64) {
    now.withLock { $0 += max(0, milliseconds) }
  }

  /// Moves time forward to `milliseconds` if that is later than now.
  public func advance(to milliseconds: Int64) {
    now.withLock { $0 = max($0, milliseconds) }
  }
}
