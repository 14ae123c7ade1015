import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// PEM files for serving HTTPS directly (no reverse proxy needed on a Pi).
public struct HubTLSFiles: Sendable {
  public var certificateChain: String
  public var privateKey: String

  public init(certificateChain: String, privateKey: String) {
    self.certificateChain = certificateChain
    self.privateKey = privateKey
  }

  /// The server-side TLS configuration: TLS 1.2 at least (1.0 and 1.1 are broken and refused, RFC 8996),
  /// NIOSSL's defaults otherwise.
  public func configuration() throws -> TLSConfiguration {
    let chain: [NIOSSLCertificate]
    let key: NIOSSLPrivateKey
    do {
      chain = try NIOSSLCertificate.fromPEMFile(certificateChain)
    } catch {
      throw HubStorageError("cannot read the certificate chain \(certificateChain): \(error); pass a PEM file")
    }
    do {
      key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
    } catch {
      throw HubStorageError("cannot read the private key \(privateKey): \(error); pass an unencrypted PEM key")
    }
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    configuration.minimumTLSVersion = .tlsv12
    return configuration
  }
}

/// Builds the hub application: the routes over a storage, bound to an address, over HTTP or HTTPS, with the
/// connection limits in every connection's pipeline.
public enum HubServer {
  /// Connections the process keeps file descriptors for besides clients: the database, logs, TLS files.
  public static let reservedDescriptors = 64

  public static func application(
    storage: any HubStorage, host: String = "127.0.0.1", port: Int = 8080, options: HubOptions = HubOptions(),
    limits: ConnectionLimits = ConnectionLimits(), tls: TLSConfiguration? = nil, metrics: HubMetrics = HubMetrics(),
    logger: Logger = Logger(label: "stressmon.hub"),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
  ) throws -> some ApplicationProtocol {
    Application(
      router: HubRoutes.router(storage: storage, options: options, metrics: metrics, logger: logger, tls: tls != nil),
      server: try server(limits: limits, tls: tls, metrics: metrics),
      configuration: configuration(host: host, port: port, limits: limits, logger: logger),
      onServerRunning: onServerRunning,
      logger: logger
    )
  }

  /// HTTP/1.1 (over TLS when given) with the connection guard and the idle timeout (`HubHTTPChannel`).
  public static func server(limits: ConnectionLimits, tls: TLSConfiguration?, metrics: HubMetrics) throws
    -> HTTPServerBuilder
  {
    let count = ConnectionCount(metrics: metrics)
    let http = HTTPServerBuilder { responder in HubHTTPChannel(responder: responder, limits: limits, count: count) }
    return try tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: $0) } ?? http
  }

  /// The listening socket's settings. Accepting pauses a little past the cap (the guard answers 503 up to
  /// there), so the hub never runs out of file descriptors whatever a client opens.
  public static func configuration(host: String, port: Int, limits: ConnectionLimits, logger: Logger)
    -> ApplicationConfiguration
  {
    ApplicationConfiguration(
      address: .hostname(host, port: port), serverName: "stressmon-hub", reuseAddress: true,
      availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections + reservedDescriptors / 2, logger: logger))
  }

  /// Raises the soft limit on open files to the hard limit (systemd's `LimitNOFILE`, or the shell's) and returns
  /// it: the most connections the hub can hold is this minus `reservedDescriptors`.
  public static func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
    }
    return Int(clamping: limit.rlim_cur)
  }

  #if canImport(Glibc)
  private static let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
  private static let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
  #endif
}

extension HubServer {
  /// One line for a server that could not start or stopped: the address in use, a port that needs root, an
  /// address this machine does not have, each with what to do.
  public static func describe(serverError error: any Error, host: String, port: Int) -> String {
    guard let io = error as? IOError else { return "the server stopped: \(error)" }
    switch io.errnoCode {
    case EADDRINUSE:
      return "port \(port) on \(host) is already in use by another program; stop it, or pass another --port"
    case EACCES:
      return "port \(port) needs privileges this user does not have; pass a --port of 1024 or above"
    case EADDRNOTAVAIL:
      return "this machine has no address \(host); pass --host 0.0.0.0 (every interface) or one of its addresses"
    default:
      return "the server stopped: \(io.description)"
    }
  }
}
