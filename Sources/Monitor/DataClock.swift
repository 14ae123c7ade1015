import StressModel
import Synchronization

/// A new baseline handed from the store queue to the sampling loop (applied at its next block).
final class BaselineRelay: Sendable {
  private let state = Mutex<(pending: PersonalBaseline?, last: PersonalBaseline?)>((nil, nil))

  /// Queues `baseline` if it differs from the last one; true when it did.
  func offer(_ baseline: PersonalBaseline) -> Bool {
    state.withLock { state in
      guard state.last != baseline else { return false }
      state.last = baseline
      state.pending = baseline
      return true
    }
  }

  func take() -> PersonalBaseline? {
    state.withLock { state in
      defer { state.pending = nil }
      return state.pending
    }
  }
}

/// The stream's "now" in data seconds, written by the sampling loop (or the kiosk's clock), read by the rest;
/// and, on paced runs, where data time 0 sits on the LEDs' clock (so LED events are on the data's timeline).
final class DataClock: Sendable {
  private let value = Mutex<(seconds: Double, origin: Int64?)>((0, nil))

  var seconds: Double {
    get { value.withLock { $0.seconds } }
    set { value.withLock { $0.seconds = newValue } }
  }

  var hasOrigin: Bool { value.withLock { $0.origin != nil } }

  /// Clock milliseconds at data time 0 (0 until known).
  var originMilliseconds: Int64 {
    get { value.withLock { $0.origin ?? 0 } }
    set { value.withLock { $0.origin = newValue } }
  }

  /// Data seconds of an instant on the LEDs' clock (0 before the data starts).
  func dataSeconds(clockMilliseconds: Int64) -> Double {
    guard let origin = value.withLock({ $0.origin }) else { return 0 }
    return max(0, Double(clockMilliseconds - origin) / 1000)
  }
}
