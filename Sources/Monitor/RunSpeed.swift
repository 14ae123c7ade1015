import Indicators
import Platform
import Sensors
import StressModel
import Synchronization

/// How fast a run goes relative to the data: the sensor's own pace, N times faster (a replay or the simulated
/// board), or as fast as the machine allows.
public enum RunSpeed: Sendable, Equatable, CustomStringConvertible {
  case realtime
  /// N × real time (N > 0). Still paced by a clock, so the LEDs blink and the panel refreshes at N× speed.
  case times(Double)
  /// No clock at all: every stage runs on data time, and stages hand over with back-pressure instead of
  /// dropping (nothing is real-time, so nothing needs to be dropped).
  case max

  /// Parses `realtime`, `max` or a number (`10`, `2.5`, `10x`).
  public init?(parsing text: String) {
    let lowered = text.lowercased()
    switch lowered {
    case "realtime", "1", "1x": self = .realtime
    case "max": self = .max
    default:
      let number = lowered.hasSuffix("x") ? String(lowered.dropLast()) : lowered
      guard let factor = Double(number), factor.isFinite, factor > 0, factor <= Self.maximumFactor else { return nil }
      self = factor == 1 ? .realtime : .times(factor)
    }
  }

  /// Fastest paced replay: beyond this use `max` (the pacing clock's sleeps get shorter than a scheduler tick).
  public static let maximumFactor = 1_000.0

  /// Whether stages may drop or coalesce display updates (a clock drives the source, so the sampling loop must
  /// never wait for them); false for `max`, where hand-overs apply back-pressure instead.
  public var isPaced: Bool { self != .max }

  public var description: String {
    switch self {
    case .realtime: "realtime"
    case .times(let factor): "\(factor.formatted(decimals: factor == factor.rounded() ? 0 : 2))x"
    case .max: "max"
    }
  }
}

/// A clock running `factor` times faster than CLOCK_MONOTONIC from the moment it is made: the sensor, the LED
/// scheduler and the panel's BUSY polling share one so that a 10× replay looks like the real thing, ten times
/// faster. Times start at 0 (its origin), so data seconds and clock seconds line up.
public final class PacedClock: SensorClock, IndicatorClock {
  public let factor: Double
  private let originNanoseconds: Int64

  public init(factor: Double = 1) {
    self.factor = factor
    originNanoseconds = Self.monotonicNanoseconds()
  }

  // MARK: - SensorClock (nanoseconds)

  public func now() -> Int64 {
    Int64((Double(Self.monotonicNanoseconds() - originNanoseconds) * factor).rounded(.down))
  }

  public func sleep(until deadline: Int64) async throws {
    let remaining = Double(deadline - now()) / factor
    guard remaining > 0 else {
      try Task.checkCancellation()
      return
    }
    try await Task.sleep(nanoseconds: UInt64(remaining.rounded(.up)))
  }

  /// The CLOCK_MONOTONIC instant (nanoseconds) at which this clock reads `deadline`.
  public func monotonicNanoseconds(atClock deadline: Int64) -> Int64 {
    originNanoseconds + Int64((Double(deadline) / factor).rounded(.up))
  }

  // MARK: - IndicatorClock (milliseconds)

  public func nowMilliseconds() -> Int64 { now() / 1_000_000 }

  public func sleep(untilMilliseconds deadline: Int64) async throws {
    try await sleep(until: deadline * 1_000_000)
  }

  // MARK: - Private

  static func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// Milliseconds of CLOCK_MONOTONIC since the process's first call: stamps events for latency measurements
/// (window emitted → category on the LEDs) independent of the run's speed.
public enum ProcessClock {
  private static let origin = PacedClock.monotonicNanoseconds()

  public static func milliseconds() -> Double {
    Double(PacedClock.monotonicNanoseconds() - origin) / 1e6
  }
}
