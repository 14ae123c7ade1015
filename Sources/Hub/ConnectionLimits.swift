import Synchronization

/// Limits that keep one client from holding the hub: how many connections, how long a request may take to
/// arrive, how long an answer may wait to be read. (How long an idle keep-alive connection stays open is
/// Hummingbird's `idleTimeout`.)
public struct ConnectionLimits: Sendable, Equatable {
  /// Open connections at most. Past it a new connection gets a 503 with `Retry-After` and is closed at once, so a
  /// flood of sockets costs the hub a file descriptor for microseconds, not for good.
  public var maxConnections: Int
  /// Seconds a client may take to send a request's headers, from when the connection opened or from the first
  /// bytes of a request: a slowloris that trickles headers is cut after this.
  public var headerTimeout: Double
  /// Seconds from a request's headers to the end of its body: 2 MiB at 100 kB/s is 20 s.
  public var bodyTimeout: Double
  /// Seconds an idle keep-alive connection stays open (a kiosk polls every 10 s and keeps its connection).
  public var idleTimeout: Double
  /// Seconds an answer may wait for the client to read it: a client that stops reading is cut after this.
  public var sendTimeout: Double

  /// Requests one connection may have ahead of their answers (one read may hold many small pipelined requests);
  /// past them the connection closes once those are answered, and the client sends the rest on a new one.
  public static let maxPipelined = 16

  public init(
    maxConnections: Int = 4096, headerTimeout: Double = 10, bodyTimeout: Double = 30, idleTimeout: Double = 30,
    sendTimeout: Double = 30
  ) {
    self.maxConnections = maxConnections
    self.headerTimeout = headerTimeout
    self.bodyTimeout = bodyTimeout
    self.idleTimeout = idleTimeout
    self.sendTimeout = sendTimeout
  }
}

/// The count of open connections, shared by every connection's guard.
final class ConnectionCount: Sendable {
  private let open = Atomic<Int>(0)
  let metrics: HubMetrics

  init(metrics: HubMetrics) {
    self.metrics = metrics
  }

  /// Counts a connection in; returns the count including it.
  func opened() -> Int {
    let count = open.wrappingAdd(1, ordering: .relaxed).newValue
    metrics.connections(count)
    return count
  }

  func closed() {
    metrics.connections(open.wrappingSubtract(1, ordering: .relaxed).newValue)
  }
}
