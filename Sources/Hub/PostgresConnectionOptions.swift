import Foundation
import NIOSSL
import PostgresNIO

/// How to reach PostgreSQL: `postgres://user@host[:port]/database[?sslmode=…&sslrootcert=…]`, the libpq URL
/// form, plus a password that comes from a file or the environment, never from the command line (argv is
/// readable by every user of the machine through /proc).
public struct PostgresConnectionOptions: Sendable, Equatable {
  /// libpq's `sslmode` values that the hub supports.
  public enum SSLMode: String, Sendable, CaseIterable {
    /// Plain TCP (a socket on the same machine, or a network you trust).
    case disable
    /// TLS when the server offers it, not verified (libpq's default).
    case prefer
    /// TLS or nothing, not verified: against eavesdroppers, not against a machine in the middle.
    case require
    /// TLS with the server's certificate verified against `sslrootcert` (or the system's CAs), any host name.
    case verifyCA = "verify-ca"
    /// TLS, certificate verified and issued for the host in the URL: the only mode safe on an open network.
    case verifyFull = "verify-full"
  }

  public var user: String
  public var password: String?
  public var host: String
  public var port: Int
  public var database: String
  public var sslMode: SSLMode
  /// PEM file of the CA(s) that signed the server's certificate (`sslrootcert`).
  public var sslRootCert: String?

  /// Parses `url`. A password inside the URL is accepted only with `allowPasswordInURL` (the URL came from the
  /// environment, not from argv).
  public init(url: String, allowPasswordInURL: Bool = true) throws {
    let invalid = HubStorageError(
      "PostgreSQL URL '\(Self.redacted(url))' is not of the form "
        + "postgres://user@host[:port]/database[?sslmode=verify-full&sslrootcert=ca.pem]")
    var rest = Substring(url)
    if rest.hasPrefix("postgres://") {
      rest = rest.dropFirst("postgres://".count)
    } else if rest.hasPrefix("postgresql://") {
      rest = rest.dropFirst("postgresql://".count)
    } else {
      throw invalid
    }
    var query: Substring = ""
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    guard let at = rest.lastIndex(of: "@"), let slash = rest[at...].firstIndex(of: "/") else { throw invalid }
    let credentials = rest[..<at].split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
    let hostPort = rest[rest.index(after: at)..<slash].split(separator: ":")
    guard let userPart = credentials.first, !userPart.isEmpty, let hostPart = hostPort.first else { throw invalid }
    if credentials.count > 1, !allowPasswordInURL {
      throw HubStorageError(
        "the PostgreSQL URL on the command line holds a password, which every user can read in the process list; "
          + "put it in a file for --postgres-password-file (or in PGPASSWORD) and drop it from the URL")
    }
    user = userPart
    password = credentials.count > 1 ? credentials[1] : nil
    host = String(hostPart)
    port = hostPort.count > 1 ? (Int(hostPort[1]) ?? -1) : 5432
    database = String(rest[rest.index(after: slash)...])
    guard (1...65535).contains(port), !database.isEmpty else { throw invalid }
    sslMode = .prefer
    for pair in query.split(separator: "&") where !pair.isEmpty {
      let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
      let value = parts.count > 1 ? parts[1] : ""
      switch parts[0] {
      case "sslmode":
        guard let mode = SSLMode(rawValue: value) else {
          throw HubStorageError(
            "sslmode '\(value)' is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        sslMode = mode
      case "sslrootcert":
        sslRootCert = value
      default:
        throw HubStorageError("PostgreSQL URL option '\(parts[0])' is not supported (only sslmode and sslrootcert)")
      }
    }
  }

  /// The URL with any password replaced, for messages and logs.
  public static func redacted(_ url: String) -> String {
    guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
    let credentials = url[scheme.upperBound..<at]
    guard let colon = credentials.firstIndex(of: ":") else { return url }
    return String(url[..<colon]) + ":***" + String(url[at...])
  }

  /// The same TLS setting for a single connection (the hub's first contact, which fails fast with the reason).
  func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
    switch try tls().mode {
    case .disable: return .disable
    case .prefer(let configuration): return .prefer(try NIOSSLContext(configuration: configuration))
    case .require(let configuration): return .require(try NIOSSLContext(configuration: configuration))
    }
  }

  /// The TLS setting of `sslMode`, for the pool and for single connections.
  struct TLSMode {
    enum Mode {
      case disable
      case prefer(TLSConfiguration)
      case require(TLSConfiguration)
    }
    var mode: Mode

    var client: PostgresClient.Configuration.TLS {
      switch mode {
      case .disable: return .disable
      case .prefer(let configuration): return .prefer(configuration)
      case .require(let configuration): return .require(configuration)
      }
    }
  }

  /// PostgresNIO's TLS setting for `sslMode`.
  func tls() throws -> TLSMode {
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.minimumTLSVersion = .tlsv12
    if let sslRootCert {
      do {
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(sslRootCert))
      } catch {
        throw HubStorageError("cannot read sslrootcert \(sslRootCert): \(error); pass a PEM file of the server's CA")
      }
    }
    switch sslMode {
    case .disable:
      return TLSMode(mode: .disable)
    case .prefer, .require:
      configuration.certificateVerification = .none
      return TLSMode(mode: sslMode == .prefer ? .prefer(configuration) : .require(configuration))
    case .verifyCA:
      configuration.certificateVerification = .noHostnameVerification
      return TLSMode(mode: .require(configuration))
    case .verifyFull:
      configuration.certificateVerification = .fullVerification
      return TLSMode(mode: .require(configuration))
    }
  }
}
