/// Full-jitter exponential backoff (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015):
/// the n-th retry waits a uniformly random time in [0, min(cap, base × 2ⁿ)], which spreads a fleet of devices
/// returning at once across the whole window instead of bunching them.
public struct BackoffPolicy: Sendable, Equatable {
  /// The ceiling of the first retry, seconds.
  public var base: Double
  /// The largest ceiling, seconds: a device never waits longer than this between tries (unless told by
  /// `Retry-After`).
  public var cap: Double
  /// The longest `Retry-After` the client obeys, seconds: a misconfigured hub cannot park devices for days.
  public var maxRetryAfter: Double

  /// Defaults: 1 s doubling to 5 min. A Pi back in Wi-Fi range retries within a second; a fleet hitting a
  /// down hub settles at one try per device per ≤ 5 min.
  public static let standard = BackoffPolicy(base: 1, cap: 300, maxRetryAfter: 3600)

  public init(base: Double, cap: Double, maxRetryAfter: Double) {
    self.base = base
    self.cap = cap
    self.maxRetryAfter = maxRetryAfter
  }

  /// The ceiling of retry number `attempt` (0 for the first retry).
  public func ceiling(attempt: Int) -> Double {
    // 2^62 overflows nothing in Double and is far beyond any cap; clamp the exponent so it stays finite.
    let exponent = Double(min(max(attempt, 0), 62))
    return min(cap, base * pow2(exponent))
  }

  /// The wait before retry number `attempt`. `unitRandom` is uniform in [0, 1); `retryAfter` is the hub's
  /// `Retry-After` in seconds, if it sent one: the client then waits at least that long.
  public func delay(attempt: Int, unitRandom: Double, retryAfter: Double?) -> Double {
    let jittered = ceiling(attempt: attempt) * min(max(unitRandom, 0), 1)
    guard let retryAfter, retryAfter.isFinite else { return jittered }
    return max(jittered, min(max(retryAfter, 0), maxRetryAfter))
  }

  private func pow2(_ exponent: Double) -> Double {
    var value = 1.0
    for _ in 0..<Int(exponent) { value *= 2 }
    return value
  }
}
