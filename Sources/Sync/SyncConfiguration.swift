import Platform

/// Where and how the client talks to the hub.
public struct SyncConfiguration: Sendable {
  /// The hub's base URL, e.g. `https://hub.local:8443`. `http://` only with `allowInsecureHTTP`.
  public var hubURL: String
  /// This device's bearer token (from `stressmon-hub token create --device ID`).
  public var token: String
  /// A PEM file of CA certificates to trust instead of the system's (a hub with a private CA).
  public var caFile: String?
  /// Plain HTTP sends the token and the data unencrypted: allowed only when asked for explicitly.
  public var allowInsecureHTTP: Bool
  /// Seconds to establish a connection (a refused one fails at once), and for a whole request: the upload, the
  /// answer's head and its whole body.
  public var connectTimeout: Double
  public var requestTimeout: Double
  /// Seconds one run (`runOnce`) may take in all, retries and waits included; the rows left stay in the outbox.
  public var deadline: Double
  /// Rows per request, at most `SyncAPI.maxBatchRows`.
  public var batchSize: Int
  public var backoff: BackoffPolicy
  /// Retries one `runOnce` makes before it gives up and leaves the rest for the next run.
  public var maxAttemptsPerRun: Int
  /// Seconds between runs of the background loop when the outbox was drained.
  public var interval: Double

  public init(
    hubURL: String, token: String, caFile: String? = nil, allowInsecureHTTP: Bool = false,
    connectTimeout: Double = 10, requestTimeout: Double = 30, deadline: Double = Self.defaultDeadline,
    batchSize: Int = 500, backoff: BackoffPolicy = .standard, maxAttemptsPerRun: Int = 6, interval: Double = 60
  ) {
    self.hubURL = hubURL
    self.token = token
    self.caFile = caFile
    self.allowInsecureHTTP = allowInsecureHTTP
    self.connectTimeout = connectTimeout
    self.requestTimeout = requestTimeout
    self.deadline = deadline
    self.batchSize = batchSize
    self.backoff = backoff
    self.maxAttemptsPerRun = maxAttemptsPerRun
    self.interval = interval
  }

  /// A run's deadline unless told otherwise: a minute, enough for a day's backlog (about 18 batches of 500 rows)
  /// over a slow link, and short enough that a down hub costs seconds of the run, not minutes.
  public static let defaultDeadline = 60.0

  /// The base URL without a trailing slash, after checking scheme, token and limits.
  public func validatedBaseURL() throws -> String {
    var url = hubURL.trimmingSpaces()
    while url.hasSuffix("/") { url.removeLast() }
    let lower = url.lowercased()
    if lower.hasPrefix("http://") {
      guard allowInsecureHTTP else {
        throw SyncError.configuration(
          "\(url) is plain HTTP, which would send the token unencrypted; use https:// or pass --insecure-http "
            + "(only on a trusted network)")
      }
    } else if !lower.hasPrefix("https://") {
      throw SyncError.configuration("hub URL '\(hubURL)' must start with https:// (or http:// with --insecure-http)")
    }
    guard url.split(separator: "/").count >= 2 else {
      throw SyncError.configuration("hub URL '\(hubURL)' has no host, e.g. https://hub.local:8443")
    }
    guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw SyncError.configuration("the token is empty or has spaces or control characters; check --token-file")
    }
    guard (1...500).contains(batchSize) else {
      throw SyncError.configuration("batch size \(batchSize) must be within 1-500")
    }
    guard connectTimeout > 0, requestTimeout > 0, deadline > 0 else {
      throw SyncError.configuration("timeouts and the deadline must be positive")
    }
    return url
  }
}

/// Wall time and sleeping, injected so tests can assert the retry schedule without waiting for it.
public protocol SyncClock: Sendable {
  /// Seconds since the Unix epoch.
  func now() -> Double
  /// Seconds on a clock that never steps (deadlines); by default `now()`, which test clocks move by hand.
  func monotonic() -> Double
  func sleep(seconds: Double) async throws
}

extension SyncClock {
  public func monotonic() -> Double { now() }
}

/// The real clock: `CLOCK_REALTIME` and `Task.sleep`.
public struct SystemSyncClock: SyncClock {
  public init() {}

  public func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  public func monotonic() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  public func sleep(seconds: Double) async throws {
    guard seconds > 0 else { return }
    try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
  }
}

