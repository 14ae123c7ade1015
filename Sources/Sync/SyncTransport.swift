import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL

/// One HTTP answer, as much as the client needs of it.
public struct SyncHTTPResponse: Sendable {
  public var status: Int
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]

  public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

/// A failure no retry can fix: the hub's TLS certificate was not accepted (untrusted, or for another name), or
/// the address does not speak TLS at all.
public struct SyncTLSFailure: Error, Sendable, CustomStringConvertible {
  public var detail: String
  /// What to do about it.
  public var advice: String

  public static let untrustedAdvice = "the hub's certificate is not trusted: pass its CA with --ca-file, or check --hub"

  public init(detail: String, advice: String = Self.untrustedAdvice) {
    self.detail = detail
    self.advice = advice
  }

  public var description: String { "TLS handshake failed (\(detail)); \(advice)" }

  /// From a NIOSSL or BoringSSL error: its reason codes (`CERTIFICATE_VERIFY_FAILED`), without BoringSSL's
  /// source paths, and the advice that fits them.
  static func from(_ error: any Error) -> SyncTLSFailure {
    let text = "\(error)"
    var reasons: [String] = []
    var rest = Substring(text)
    while let marker = rest.firstRange(of: "OPENSSL_internal:") {
      let reason = rest[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
      if !reason.isEmpty, !reasons.contains(String(reason)) { reasons.append(String(reason)) }
      rest = rest[marker.upperBound...]
    }
    let detail = reasons.isEmpty ? String(text.prefix { $0 != "\n" }.prefix(160)) : reasons.joined(separator: ", ")
    if reasons.contains("WRONG_VERSION_NUMBER") {
      return SyncTLSFailure(
        detail: detail,
        advice: "the hub answers plain HTTP, not HTTPS, at this address: use --hub http://HOST:PORT with "
          + "--insecure-http on a network you trust, or start the hub with --tls-cert and --tls-key")
    }
    return SyncTLSFailure(detail: detail)
  }
}

/// Sends one request to the hub. `AsyncHTTPTransport` is the real one; tests may script answers.
public protocol SyncTransport: Sendable {
  /// POSTs `body` to `path` (relative to the hub's base URL). Throws when no HTTP answer arrived in time;
  /// throws `SyncTLSFailure` when the hub's certificate is not trusted.
  func post(path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Double) async throws
    -> SyncHTTPResponse
  /// Closes connections. Call once, when done.
  func shutdown() async throws
}

/// `SyncTransport` over swift-server/async-http-client: HTTP/1.1 or 2, TLS with certificate verification
/// (system trust store, or only the CA file configured), connect timeout, connection reuse.
public final class AsyncHTTPTransport: SyncTransport {
  /// Answers larger than this are not what the hub sends: they are read up to here and then treated as garbage.
  public static let maxResponseBytes = 1024 * 1024

  private let baseURL: String
  private let client: HTTPClient

  public init(configuration: SyncConfiguration) throws {
    baseURL = try configuration.validatedBaseURL()
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.certificateVerification = .fullVerification
    if let caFile = configuration.caFile {
      do {
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
      } catch {
        throw SyncError.configuration("cannot read CA certificates from \(caFile): \(error); pass a PEM file")
      }
    }
    var clientConfiguration = HTTPClient.Configuration(
      tlsConfiguration: tls,
      timeout: .init(connect: .milliseconds(Int64(configuration.connectTimeout * 1000))),
      decompression: .disabled
    )
    clientConfiguration.redirectConfiguration = .disallow
    client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
  }

  public func post(path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Double)
    async throws -> SyncHTTPResponse
  {
    var request = HTTPClientRequest(url: baseURL + path)
    request.method = .POST
    for header in headers { request.headers.add(name: header.name, value: header.value) }
    request.body = .bytes(ByteBuffer(bytes: body))
    return try await execute(request, timeout: timeout)
  }

  /// GETs `path` (relative to the hub's base URL): the kiosk's `GET /v1/devices/{id}/latest`. Same TLS rules,
  /// timeouts and answer size limit as `post`.
  public func get(path: String, headers: [(name: String, value: String)] = [], timeout: Double) async throws
    -> SyncHTTPResponse
  {
    var request = HTTPClientRequest(url: baseURL + path)
    request.method = .GET
    for header in headers { request.headers.add(name: header.name, value: header.value) }
    return try await execute(request, timeout: timeout)
  }

  public func shutdown() async throws {
    try await client.shutdown()
  }

  private func execute(_ request: HTTPClientRequest, timeout: Double) async throws -> SyncHTTPResponse {
    let response: HTTPClientResponse
    do {
      response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
    } catch let error as NIOSSLError {
      throw SyncTLSFailure.from(error)
    } catch let error as BoringSSLError {
      throw SyncTLSFailure.from(error)
    } catch let error as NIOSSLExtraError where error == .failedToValidateHostname {
      // A certificate for another name will not match next time either: stop, as for an untrusted one.
      throw SyncTLSFailure(
        detail: "failedToValidateHostname",
        advice: "the hub's certificate is not issued for this host name: check --hub (the name it is issued for)")
    }
    let bytes = try await response.body.collect(upTo: Self.maxResponseBytes)
    return SyncHTTPResponse(
      status: Int(response.status.code),
      headers: response.headers.map { (name: $0.name, value: $0.value) },
      body: Array(buffer: bytes)
    )
  }
}
