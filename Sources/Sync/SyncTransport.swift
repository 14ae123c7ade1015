import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Platform

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

/// A failure no retry can fix: the TLS handshake with the hub failed (a certificate not trusted or issued for
/// another name, or no TLS at all on the other end). `description` is one line with the advice.
public struct SyncTLSFailure: Error, Sendable, CustomStringConvertible {
  public var detail: String
  /// What to do about it.
  public var advice: String

  public init(
    detail: String, advice: String = "the hub's certificate is not trusted: pass its CA with --ca-file, or check --hub"
  ) {
    self.detail = detail
    self.advice = advice
  }

  public var description: String { "TLS handshake failed (\(detail)); \(advice)" }
}

/// A request that got no (complete) HTTP answer: refused, reset, timed out, cut off. `description` is one line
/// for people; the client retries these with backoff.
public struct SyncTransportError: Error, Sendable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
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
///
/// Bounds: a refused connection fails at once (async-http-client would otherwise retry connection establishment
/// until its connect timeout: `connectionPool.retryConnectionEstablishment` is off), and a request's timeout covers
/// everything up to the last byte of the answer's body (`withTimeLimit`), so a hub that sends its head and then
/// trickles costs one timeout, not more. Errors come out as `SyncTransportError` / `SyncTLSFailure`: one line each.
public final class AsyncHTTPTransport: SyncTransport {
  /// Answers larger than this are not what the hub sends: they are read up to here and then treated as garbage.
  public static let maxResponseBytes = 1024 * 1024

  private let baseURL: String
  private let client: HTTPClient
  private let connectTimeout: Double
  /// `host:port` of the hub, for messages.
  private let endpoint: String

  public init(configuration: SyncConfiguration) throws {
    baseURL = try configuration.validatedBaseURL()
    connectTimeout = configuration.connectTimeout
    endpoint = Self.endpoint(of: baseURL)
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.certificateVerification = .fullVerification
    if let caFile = configuration.caFile {
      do {
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
      } catch {
        throw SyncError.configuration(
          "cannot read CA certificates from \(caFile) (\(Self.oneLine(error))); pass a PEM file")
      }
    }
    var clientConfiguration = HTTPClient.Configuration(
      tlsConfiguration: tls,
      timeout: .init(connect: .milliseconds(Int64(configuration.connectTimeout * 1000))),
      decompression: .disabled
    )
    clientConfiguration.redirectConfiguration = .disallow
    // A refused connection means the hub is not there now: fail the attempt at once and let the client's backoff
    // decide when to try again, instead of retrying inside the HTTP client until the connect timeout.
    clientConfiguration.connectionPool.retryConnectionEstablishment = false
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

  /// The request and the whole answer within `timeout`, or one line saying why not.
  private func execute(_ request: HTTPClientRequest, timeout: Double) async throws -> SyncHTTPResponse {
    let client = client
    do {
      return try await withTimeLimit(timeout) {
        let response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        let bytes = try await response.body.collect(upTo: Self.maxResponseBytes)
        return SyncHTTPResponse(
          status: Int(response.status.code),
          headers: response.headers.map { (name: $0.name, value: $0.value) },
          body: Array(buffer: bytes)
        )
      }
    } catch is CancellationError {
      throw CancellationError()
    } catch let limit as TimeLimitExceeded {
      throw SyncTransportError("\(endpoint) sent no complete answer within \(limit.seconds.formattedSeconds) s")
    } catch {
      throw translated(error)
    }
  }

  /// One line for a failure of the HTTP client, SwiftNIO or BoringSSL, with the hub's address.
  func translated(_ error: any Error) -> any Error {
    if let tls = tlsFailure(error) { return tls }
    if let error = error as? HTTPClientError {
      switch error {
      case .connectTimeout:
        return SyncTransportError("no connection to \(endpoint) within \(connectTimeout.formattedSeconds) s")
      case .remoteConnectionClosed:
        return SyncTransportError("\(endpoint) closed the connection before its answer was complete")
      case .readTimeout, .deadlineExceeded, .writeTimeout:
        return SyncTransportError("\(endpoint) sent no complete answer in time")
      case .cancelled:
        return CancellationError()
      default:
        return SyncTransportError("HTTP client: \(Self.oneLine(error)) (\(endpoint))")
      }
    }
    if let error = error as? NIOConnectionError {
      if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
        return SyncTransportError("cannot resolve the host name of \(endpoint): check --hub and the network")
      }
      if let first = error.connectionErrors.first { return translated(first.error) }
    }
    if let error = error as? IOError {
      switch error.errnoCode {
      case ECONNREFUSED:
        return SyncTransportError("connection refused by \(endpoint): is the hub running and listening there?")
      case ECONNRESET, EPIPE:
        return SyncTransportError("connection to \(endpoint) reset before its answer was complete")
      case ENETUNREACH, EHOSTUNREACH, ENETDOWN:
        return SyncTransportError("no route to \(endpoint): check the network")
      case ETIMEDOUT:
        return SyncTransportError("no connection to \(endpoint): it timed out")
      default:
        return SyncTransportError("network error talking to \(endpoint): \(String(cString: strerror(error.errnoCode)))")
      }
    }
    if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .eof || error == .alreadyClosed {
      return SyncTransportError("\(endpoint) closed the connection before its answer was complete")
    }
    if error is HTTPParserError {
      return SyncTransportError("\(endpoint) sent an answer that is cut off or not HTTP")
    }
    return SyncTransportError("\(Self.oneLine(error)) (\(endpoint))")
  }

  /// The TLS failures, with the advice that fits: plain HTTP on the other end, a certificate for another name, or
  /// one that is not trusted.
  private func tlsFailure(_ error: any Error) -> SyncTLSFailure? {
    let reason: String
    if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
      return SyncTLSFailure(
        detail: "the certificate is not issued for \(Self.host(of: endpoint))",
        advice: "check --hub: it must name the host the hub's certificate is issued for")
    } else if error is NIOSSLError || error is BoringSSLError {
      reason = Self.boringSSLReason(error) ?? Self.oneLine(error)
    } else {
      return nil
    }
    if reason == "WRONG_VERSION_NUMBER" || reason == "HTTP_REQUEST" {
      return SyncTLSFailure(
        detail: "\(endpoint) answers plain HTTP, not HTTPS",
        advice: "use http://\(endpoint) with --insecure-http (insecure_http = true in the configuration; trusted "
          + "networks only), or serve the hub over TLS (stressmon-hub serve --tls-cert --tls-key)")
    }
    return SyncTLSFailure(detail: reason)
  }

  /// BoringSSL's reason code (`CERTIFICATE_VERIFY_FAILED`, `WRONG_VERSION_NUMBER`) from NIOSSL's error text, which
  /// otherwise carries numbers and the path of a source file of the build.
  static func boringSSLReason(_ error: any Error) -> String? {
    let text = "\(error)"
    guard let start = text.endOfFirst("OPENSSL_internal:") else { return nil }
    let reason = text[start...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
    return reason.isEmpty ? nil : String(reason)
  }

  /// `host:port` of a base URL (the scheme's default port when none is given).
  static func endpoint(of url: String) -> String {
    let lower = url.lowercased()
    let https = lower.hasPrefix("https://")
    let rest = url.drop { $0 != "/" }.drop { $0 == "/" }
    let authority = rest.prefix { $0 != "/" }
    let hostPart = authority.split(separator: "@").last.map(String.init) ?? String(authority)
    if hostPart.hasSuffix("]") || !hostPart.contains(":") { return hostPart + (https ? ":443" : ":80") }
    return hostPart
  }

  static func host(of endpoint: String) -> String {
    guard let colon = endpoint.lastIndex(of: ":") else { return endpoint }
    return String(endpoint[..<colon])
  }

  /// An error's text on one line, at most 160 characters, without build paths.
  static func oneLine(_ error: any Error) -> String {
    var text = "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
    if let end = text.endOfFirst(" at /") { text = String(text[..<text.index(end, offsetBy: -5)]) }
    return text.count > 160 ? String(text.prefix(157)) + "..." : text
  }
}

extension String {
  /// Where the first `needle` in this string ends (no Foundation here).
  fileprivate func endOfFirst(_ needle: String) -> Index? {
    var start = startIndex
    while start < endIndex {
      if self[start...].hasPrefix(needle) { return index(start, offsetBy: needle.count) }
      start = index(after: start)
    }
    return nil
  }
}
