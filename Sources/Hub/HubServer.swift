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

  /// The server-side TLS configuration (TLS 1.2 minimum, NIOSSL defaults otherwise).
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
    return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
  }
}

/// Builds the hub application: the routes over a storage, bound to an address, over HTTP or HTTPS.
public enum HubServer {
  public static func application(
    storage: any HubStorage, host: String = "0.0.0.0", port: Int = 8080, options: HubOptions = HubOptions(),
    tls: TLSConfiguration? = nil, logger: Logger = Logger(label: "stressmon.hub"),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
  ) throws -> some ApplicationProtocol {
    Application(
      router: HubRoutes.router(storage: storage, options: options, logger: logger),
      server: try tls.map { try HTTPServerBuilder.tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
      configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "stressmon-hub"),
      onServerRunning: onServerRunning,
      logger: logger
    )
  }
}
