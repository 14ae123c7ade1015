import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// HTTP/1.1 for the hub: Hummingbird's `HTTP1Channel` pipeline with the connection guard placed where it must
/// see the connection: a sensor before the HTTP decoder (a request's first bytes start the header deadline),
/// the guard between decoding and Hummingbird (framing, deadlines, back-pressure, requests matched with their
/// answers), then Hummingbird's idle timeout and its request loop.
struct HubHTTPChannel: ServerChildChannel, HTTPChannelHandler {
  typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

  let responder: HTTPChannelHandler.Responder
  let limits: ConnectionLimits
  let count: ConnectionCount

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    channel.eventLoop.makeCompletedFuture {
      let guardHandler = ConnectionGuardHandler(limits: limits, count: count)
      let pipeline = channel.pipeline.syncOperations
      try pipeline.addHandler(RequestBytesSensor(guardHandler))
      try pipeline.configureHTTPServerPipeline(
        withPipeliningAssistance: false,  // the guard keeps requests and answers in step
        withErrorHandling: false,  // Hummingbird answers a malformed request 400 and closes
        withOutboundHeaderValidation: false,  // swift-http-types validates header fields already
        withEncoderConfiguration: .init(),
        withDecoderLimitConfiguration: .init())
      try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
      try pipeline.addHandler(guardHandler)
      try pipeline.addHandler(
        HTTPConnectionStateHandler(idleTimeout: .milliseconds(Int64(limits.idleTimeout * 1000)), logger: logger))
      return try NIOAsyncChannel(
        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
    }
  }

  func handle(value asyncChannel: Value, logger: Logger) async {
    await handleHTTP(asyncChannel: asyncChannel, logger: logger)
  }
}
