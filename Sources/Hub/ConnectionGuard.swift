import CommandSupport
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per connection, between HTTP decoding and Hummingbird. It
/// - counts the connection (503 and close past the cap);
/// - refuses a request whose framing it cannot trust (a `Transfer-Encoding` other than `chunked`, or with a
///   `Content-Length`: RFC 9112 §6.1, §6.3) with 400 and a close, after the answers owed before it;
/// - keeps requests and answers in step, counting both, so that with keep-alive and pipelining each answer is
///   matched with its own request: an answer ending before its request's body ended (413, 401…) closes the
///   connection (the rest of the body is not read); any other answer leaves it open;
/// - runs a deadline only while the hub waits for the client: the headers (`headerTimeout`, from the opening or
///   from a request's first bytes), a body (`bodyTimeout`), an answer the client does not read (`sendTimeout`);
///   none while the hub itself is answering;
/// - applies back-pressure: it stops reading the connection while an answer is waiting to be written (the
///   socket's buffer is full) or while requests already read wait for their answers; and it takes at most
///   `ConnectionLimits.maxPipelined` requests ahead of their answers from one read (requests a client pipelines
///   past that are not taken: the connection closes once those taken are answered, and the client sends the rest
///   again on a new one, RFC 9112 §9.3.2). A client that pipelines requests and never reads the answers holds a
///   few requests and what one socket write holds in the hub's memory, whatever it sends.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// Requests read whose answers are not written yet, past which the connection is not read further.
  static let maxUnanswered = 2

  private let limits: ConnectionLimits
  private let count: ConnectionCount
  private var counted = false
  /// Requests whose head was read, whose end was read, and answers whose end was written.
  private var requestsStarted = 0
  private var requestsEnded = 0
  private var answersEnded = 0
  /// The current answer said `Connection: close`.
  private var closeAfterAnswer = false
  /// Reading stopped for good: the connection is refused or closing; whatever arrives is dropped.
  private var closing = false
  /// Close once this many answers are out (the requests taken before are answered first), after writing the
  /// refusal if there is one.
  private var pendingClose: (after: Int, refusal: Refusal?)?
  /// A `read()` held back for back-pressure, to pass on when the answers catch up.
  private var heldRead = false
  /// Answers written whose last byte has not gone to the kernel yet.
  private var unsentAnswers = 0
  private var requestDeadline: Scheduled<Void>?
  private var sendDeadline: Scheduled<Void>?

  init(limits: ConnectionLimits, count: ConnectionCount) {
    self.limits = limits
    self.count = count
  }

  // MARK: - Lifetime

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

  // MARK: - Requests

  /// Bytes came in before decoding (`RequestBytesSensor`): on an idle connection, a request has begun.
  func bytesArrived(_ context: ChannelHandlerContext) {
    if !closing, isIdle, requestDeadline == nil {
      arm(context, seconds: limits.headerTimeout, reason: "header_timeout")
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }
    switch unwrapInboundIn(data) {
    case .head(let head):
      if let problem = Self.framingProblem(head) {
        closeWhenAnswered(context, refusal: Refusal(status: .badRequest, code: "bad_framing", message: problem))
        return
      }
      guard requestsStarted - answersEnded < ConnectionLimits.maxPipelined else {
        closeWhenAnswered(context, refusal: nil)
        return
      }
      requestsStarted += 1
      disarmRequest()
      // The body is timed only when the hub is waiting on it: when every earlier request is answered.
      if requestsStarted == answersEnded + 1 {
        arm(context, seconds: limits.bodyTimeout, reason: "body_timeout")
      }
    case .body:
      break
    case .end:
      requestsEnded += 1
      if requestsEnded == answersEnded + 1 { disarmRequest() }
    }
    context.fireChannelRead(data)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A malformed request (HTTPParserError): Hummingbird answers 400 and closes; nothing more is read.
    closing = true
    disarmRequest()
    context.fireErrorCaught(error)
  }

  // MARK: - Answers

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(let head):
      if head.status.kind != .informational, head.headerFields[.connection]?.lowercased() == "close" {
        closeAfterAnswer = true
      }
      context.write(data, promise: promise)
    case .body:
      context.write(data, promise: promise)
    case .end:
      answersEnded += 1
      let promise = trackSending(context, promise)
      if requestsEnded < answersEnded || closeAfterAnswer {
        // Answered before the request's body ended (413, 401…), or told to close: the rest is not read.
        closing = true
        disarmRequest()
        writeAndClose(context, data, promise: promise)
        return
      }
      if let pending = pendingClose, answersEnded >= pending.after {
        pendingClose = nil
        if let refusal = pending.refusal {
          context.write(data, promise: promise)
          writeRefusal(context, refusal)
        } else {
          writeAndClose(context, data, promise: promise)
        }
        return
      }
      context.write(data, promise: promise)
      if requestsStarted > answersEnded, requestsEnded == answersEnded {
        // The next request was pipelined and its body is still coming: now the hub waits on it.
        arm(context, seconds: limits.bodyTimeout, reason: "body_timeout")
      }
      releaseRead(context)
    }
  }

  // MARK: - Back-pressure

  func read(context: ChannelHandlerContext) {
    guard !closing, context.channel.isWritable, requestsStarted - answersEnded < Self.maxUnanswered else {
      heldRead = !closing
      return
    }
    heldRead = false
    context.read()
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    // Each change is progress or its end: the send deadline runs from the last one while answers are unsent.
    if context.channel.isWritable {
      if unsentAnswers > 0 { armSend(context) } else { disarmSend() }
      releaseRead(context)
    } else {
      armSend(context)
    }
    context.fireChannelWritabilityChanged()
  }

  // MARK: - Private

  /// No request partly read and every request answered: the hub waits for the client's next request.
  private var isIdle: Bool { requestsStarted == requestsEnded && answersEnded == requestsEnded }

  /// Why a request's framing cannot be trusted, or nil. A `Transfer-Encoding` other than exactly `chunked` (the
  /// only transfer coding the hub reads) leaves the body's end unknown; with a `Content-Length` beside it, two
  /// parties may each pick a different one (request smuggling). Either way the rest of the connection cannot be
  /// read as requests: 400 and close (RFC 9112 §6.3).
  static func framingProblem(_ head: HTTPRequest) -> String? {
    let codings = head.headerFields[values: .transferEncoding]
    guard !codings.isEmpty else { return nil }
    let coding = codings.joined(separator: ",").lowercased().split(separator: ",")
      .map { $0.trimmingCharacters(in: .whitespaces) }
    guard coding == ["chunked"] else {
      return "Transfer-Encoding '\(codings.joined(separator: ", ").prefix(60))' is not supported: send the body "
        + "with Content-Length, or with Transfer-Encoding: chunked alone"
    }
    guard head.headerFields[.contentLength] == nil else {
      return "a request has Transfer-Encoding or Content-Length, not both"
    }
    return nil
  }

  private func opened(_ context: ChannelHandlerContext) {
    guard !counted else { return }
    counted = true
    guard count.opened() <= limits.maxConnections else {
      closing = true
      count.metrics.connectionClosed(reason: "over_capacity")
      writeRefusal(
        context,
        Refusal(
          status: .serviceUnavailable, code: "over_capacity",
          message: "the hub has too many open connections; retry in a few seconds", headers: [.retryAfter: "5"]))
      return
    }
    arm(context, seconds: limits.headerTimeout, reason: "header_timeout")
  }

  private func closed() {
    disarmRequest()
    disarmSend()
    if counted {
      counted = false
      count.closed()
    }
  }

  /// An answer the guard writes itself (not the router).
  struct Refusal {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var headers: HTTPFields = [:]
  }

  /// Stops reading; once the requests taken are answered, writes `refusal` (if any) and closes.
  private func closeWhenAnswered(_ context: ChannelHandlerContext, refusal: Refusal?) {
    closing = true
    disarmRequest()
    guard answersEnded < requestsStarted else {
      if let refusal { writeRefusal(context, refusal) } else { context.close(promise: nil) }
      return
    }
    pendingClose = (requestsStarted, refusal)
  }

  /// A JSON `{error, message}` answer written here, then the connection closed.
  private func writeRefusal(_ context: ChannelHandlerContext, _ refusal: Refusal) {
    let (status, code, message, headers) = (refusal.status, refusal.code, refusal.message, refusal.headers)
    let body = #"{"error":"\#(code)","message":\#(JSONString.literal(message))}"#
    var fields: HTTPFields = [
      .contentType: "application/json; charset=utf-8", .connection: "close", .contentLength: "\(body.utf8.count)",
    ]
    SecurityHeaders.apply(to: &fields, tls: false)
    fields.append(contentsOf: headers)
    context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
    context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
  }

  /// Writes an answer's last part and closes once it is out (a client that does not read it meets the send
  /// deadline), so that closing never discards an answer the client is reading.
  private func writeAndClose(_ context: ChannelHandlerContext, _ data: NIOAny, promise: EventLoopPromise<Void>?) {
    let written = context.eventLoop.makePromise(of: Void.self)
    written.futureResult.assumeIsolated().whenComplete { result in
      promise?.completeWith(result)
      context.close(promise: nil)
    }
    context.writeAndFlush(data, promise: written)
  }

  private func releaseRead(_ context: ChannelHandlerContext) {
    guard heldRead, !closing, context.channel.isWritable, requestsStarted - answersEnded < Self.maxUnanswered else {
      return
    }
    heldRead = false
    context.read()
  }

  private func arm(_ context: ChannelHandlerContext, seconds: Double, reason: String) {
    disarmRequest()
    let metrics = count.metrics
    requestDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: Self.amount(seconds)) {
      metrics.connectionClosed(reason: reason)
      context.close(promise: nil)
    }
  }

  /// Counts an answer's end as unsent until its write completes (the kernel took its last byte), and keeps the
  /// send deadline running meanwhile: a client that stops reading fills the socket, and the write never completes.
  private func trackSending(_ context: ChannelHandlerContext, _ promise: EventLoopPromise<Void>?)
    -> EventLoopPromise<Void>
  {
    unsentAnswers += 1
    if sendDeadline == nil { armSend(context) }
    let sent = context.eventLoop.makePromise(of: Void.self)
    sent.futureResult.assumeIsolated().whenComplete { [self] result in
      promise?.completeWith(result)
      unsentAnswers -= 1
      if unsentAnswers == 0, context.channel.isWritable { disarmSend() }
    }
    return sent
  }

  private func armSend(_ context: ChannelHandlerContext) {
    disarmSend()
    let metrics = count.metrics
    sendDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: Self.amount(limits.sendTimeout)) {
      metrics.connectionClosed(reason: "send_timeout")
      context.close(promise: nil)
    }
  }

  private func disarmSend() {
    sendDeadline?.cancel()
    sendDeadline = nil
  }

  private func disarmRequest() {
    requestDeadline?.cancel()
    requestDeadline = nil
  }

  private static func amount(_ seconds: Double) -> TimeAmount {
    .milliseconds(Int64(seconds * 1000))
  }
}

/// Sits before the HTTP decoder and tells the guard when bytes arrive, so that the header deadline starts with
/// a request's first bytes rather than when the connection went idle (a kiosk's idle keep-alive connection is
/// the idle timeout's, not a slow request).
final class RequestBytesSensor: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let guardHandler: ConnectionGuardHandler

  init(_ guardHandler: ConnectionGuardHandler) {
    self.guardHandler = guardHandler
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guardHandler.bytesArrived(context)
    context.fireChannelRead(data)
  }
}
