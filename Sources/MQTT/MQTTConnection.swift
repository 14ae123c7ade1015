import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One TCP (or TLS) connection to the broker, as an async channel of decoded inbound packets and outbound bytes.
enum MQTTConnection {
  typealias Channel = NIOAsyncChannel<MQTTInbound, ByteBuffer>

  /// Opens the connection: TCP within `connectTimeoutSeconds`, TLS set up (its handshake starts once TCP is
  /// connected and runs under the caller's CONNACK timeout). `errors` keeps the first error the pipeline raised: a failed
  /// handshake can close the channel before its error reaches the inbound stream, which then just ends.
  static func open(
    _ configuration: MQTTConfiguration, tls: NIOSSLContext?, group: any EventLoopGroup, errors: FirstError
  ) async throws(MQTTError) -> Channel {
    let serverHostname = isIPAddress(configuration.host) ? nil : configuration.host
    let bootstrap = ClientBootstrap(group: group)
      .connectTimeout(.milliseconds(Int64(configuration.connectTimeoutSeconds * 1000)))
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
    do {
      return try await bootstrap.connect(host: configuration.host, port: configuration.port) { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tls {
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
          }
          try channel.pipeline.syncOperations.addHandler(FirstErrorHandler(errors: errors))
          try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTFrameDecoder()))
          return try Channel(wrappingChannelSynchronously: channel)
        }
      }
    } catch {
      throw classify(error)
    }
  }

  /// The TLS context: full certificate verification against the system trust store or only `caFile`; TLS 1.2+.
  static func tlsContext(caFile: String?) throws(MQTTError) -> NIOSSLContext {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.certificateVerification = .fullVerification
    tls.minimumTLSVersion = .tlsv12
    do {
      if let caFile { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile)) }
    } catch {
      throw .configuration("cannot read CA certificates from ca_file \(caFile ?? ""): \(error); give a PEM file")
    }
    do {
      return try NIOSSLContext(configuration: tls)
    } catch {
      throw .configuration("cannot set up TLS: \(error)")
    }
  }

  /// Maps what NIO and NIOSSL throw onto the client's errors.
  static func classify(_ error: any Error) -> MQTTError {
    if let error = error as? MQTTError { return error }
    // A TCP close without TLS's close_notify is the broker going away (a restart), not a certificate problem.
    if let error = error as? NIOSSLError, case .uncleanShutdown = error {
      return .unreachable("the broker closed the connection")
    }
    if error is NIOSSLError || error is BoringSSLError { return .tls("\(error)") }
    if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
      return .tls("the broker's certificate is not issued for this host name (\(error))")
    }
    if let error = error as? ChannelError {
      switch error {
      case .connectTimeout: return .timeout("to the TCP connection")
      case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return .unreachable("the broker closed the connection")
      default: return .unreachable("\(error)")
      }
    }
    if let error = error as? NIOConnectionError {
      let causes = error.connectionErrors.map { "\($0.target): \($0.error)" }
      if error.dnsAError != nil && error.dnsAAAAError != nil { return .unreachable("no address for \(error.host)") }
      return .unreachable(causes.isEmpty ? "\(error)" : causes.joined(separator: ", "))
    }
    if let error = error as? IOError { return .unreachable(error.description) }
    return .unreachable("\(error)")
  }

  private static func isIPAddress(_ host: String) -> Bool {
    (try? SocketAddress(ipAddress: host, port: 0)) != nil
  }
}

/// Splits the byte stream into packets (`MQTTInbound.decode`).
struct MQTTFrameDecoder: ByteToMessageDecoder {
  typealias InboundOut = MQTTInbound

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    let bytes = Array(buffer.readableBytesView)
    guard let (packet, used) = try MQTTInbound.decode(bytes[...]) else { return .needMoreData }
    buffer.moveReaderIndex(forwardBy: used)
    context.fireChannelRead(wrapInboundOut(packet))
    return .continue
  }

  mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
    -> DecodingState
  {
    try decode(context: context, buffer: &buffer)
  }
}

/// The first error a connection's pipeline raised (`FirstErrorHandler`), read once its stream has ended.
/// Locking: one `Mutex`.
final class FirstError: Sendable {
  private let error = Mutex<(any Error)?>(nil)

  func record(_ error: any Error) {
    self.error.withLock { if $0 == nil { $0 = error } }
  }

  var value: (any Error)? { error.withLock { $0 } }
}

/// Passes everything on; notes the first error on its way.
final class FirstErrorHandler: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  private let errors: FirstError

  init(errors: FirstError) {
    self.errors = errors
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    errors.record(error)
    context.fireErrorCaught(error)
  }
}
