import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Limits that keep one client from holding the hub: how many connections, and how long a request may take to
/// arrive. (How long an idle keep-alive connection stays open is Hummingbird's `idleTimeout`.)
public struct ConnectionLimits: Sendable, Equatable {
  /// Open connections at most. Past it a new connection gets a 503 with `Retry-After` and is closed at once, so a
  /// flood of sockets costs the hub a file descriptor for microseconds, not for good.
  public var maxConnections: Int
  /// Seconds a connection may take to send a request's headers (from when it opened, or from the previous
  /// answer): a slowloris that trickles headers is cut after this.
  public var headerTimeout: Double
  /// Seconds from a request's headers to the end of its body: 2 MiB at 100 kB/s is 20 s.
  public var bodyTimeout: Double
  /// Seconds an idle keep-alive connection stays open (a kiosk polls every 10 s and keeps its connection).
  public var idleTimeout: Double

  public init(maxConnections: Int = 4096, headerTimeout: Double = 10, bodyTimeout: Double = 30, idleTimeout: Double = 30) {
    self.maxConnections = maxConnections
    self.headerTimeout = headerTimeout
    self.bodyTimeout = bodyTimeout
    self.idleTimeout = idleTimeout
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

/// One per connection, after HTTP decoding: counts the connection (503 and close past the cap), closes it when a
/// request's headers or body do not arrive in time, and closes it when the hub answered before reading the whole
/// request (an oversized body is refused, not read to its end).
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let limits: ConnectionLimits
  private let count: ConnectionCount
  private var counted = false
  private var refused = false
  /// Between a request's head and its end.
  private var readingRequest = false
  private var deadline: Scheduled<Void>?

  init(limits: ConnectionLimits, count: ConnectionCount) {
    self.limits = limits
    self.count = count
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { opened(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    opened(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    closed()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    closed()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !refused else { return }
    switch unwrapInboundIn(data) {
    case .head:
      readingRequest = true
      arm(context, seconds: limits.bodyTimeout, reason: "body_timeout")
    case .body:
      break
    case .end:
      readingRequest = false
      disarm()
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard case .end = unwrapOutboundIn(data) else {
      context.write(data, promise: promise)
      return
    }
    if readingRequest {
      // Answered before the body ended (413, 401…): do not read the rest, close once the answer is out.
      disarm()
      context.writeAndFlush(data, promise: promise)
      context.close(promise: nil)
      return
    }
    context.write(data, promise: promise)
    arm(context, seconds: limits.headerTimeout, reason: "header_timeout")
  }

  // MARK: - Private

  private func opened(_ context: ChannelHandlerContext) {
    guard !counted else { return }
    counted = true
    guard count.opened() <= limits.maxConnections else {
      refused = true
      count.metrics.connectionClosed(reason: "over_capacity")
      refuse(context)
      return
    }
    arm(context, seconds: limits.headerTimeout, reason: "header_timeout")
  }

  private func closed() {
    disarm()
    if counted {
      counted = false
      count.closed()
    }
  }

  private func refuse(_ context: ChannelHandlerContext) {
    let body = #"{"error":"over_capacity","message":"the hub has too many open connections; retry in a few seconds"}"#
    let head = HTTPResponse(
      status: .serviceUnavailable,
      headerFields: [
        .contentType: "application/json; charset=utf-8", .retryAfter: "5", .connection: "close",
        .contentLength: "\(body.utf8.count)",
      ])
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
  }

  private func arm(_ context: ChannelHandlerContext, seconds: Double, reason: String) {
    disarm()
    let metrics = count.metrics
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
      metrics.connectionClosed(reason: reason)
      context.close(promise: nil)
    }
  }

  private func disarm() {
    deadline?.cancel()
    deadline = nil
  }
}
