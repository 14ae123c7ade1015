import Foundation
import Hummingbird
import Logging
import Synchronization
import SyncWire

/// Who may do what. Every route but `/healthz` and `/openapi.yaml` asks a credential of it:
/// - devices write (`POST /v1/measurements`) with a device token and nothing else;
/// - readers read the feed, `latest`, the fleet pages and `/metrics`, of one device or of all;
/// - a kiosk key opens one device's kiosk page (the URL carries it, so a wall display needs no login).
///
/// A token comes as `Authorization: Bearer T`, as the password of `Authorization: Basic` (a browser's login
/// prompt), or as `?key=T` (links for kiosks and bookmarks). Reads are rate-limited per token.
final class HubAccess: Sendable {
  /// How a request presented its token: pages keep `?key=` in their links only when it came that way.
  enum Presented: Sendable, Equatable {
    case header
    case query(String)
  }

  /// What a route group asks of a request's token (`HubAccessMiddleware`).
  enum Role: Sendable {
    /// A device token (it writes its own device's rows).
    case device
    /// A reader token, of the route's device or of all; `page`: refusals ask a browser for a login.
    case reader(page: Bool)
    /// A reader token of every device (`/metrics`).
    case readerOfAll
    /// A kiosk key of the route's device, or a reader of it.
    case kiosk
  }

  /// What the middleware found: the token's credential and how it came.
  struct Granted: Sendable {
    var credential: Credential
    var presented: Presented

    var pair: (Credential, Presented) { (credential, presented) }
  }

  /// How often a token's last use is written (seconds): the first use, then at most once a minute.
  static let touchInterval: Double = 60

  private let storage: any HubStorage
  private let options: HubOptions
  private let metrics: HubMetrics
  private let logger: Logger
  /// Per token hash: token-bucket level and when it was last filled. Keyed by hash, so a token over its rate is
  /// refused before the database is asked; entries exist only for tokens that authenticated once.
  private let buckets = Mutex<[String: (level: Double, at: Double)]>([:])
  /// Per token id: when its last use was last written.
  private let touched = Mutex<[String: Double]>([:])

  init(storage: any HubStorage, options: HubOptions, metrics: HubMetrics, logger: Logger) {
    self.storage = storage
    self.options = options
    self.metrics = metrics
    self.logger = logger
  }

  // MARK: - Roles

  /// Checks the request's token against `role` (and `device`, the one the route's path names).
  func authorize(_ request: Request, role: Role, device: String?) async throws -> Granted {
    switch role {
    case .device:
      let (credential, presented, _) = try await authenticate(request, page: false)
      guard credential.kind == .device, credential.deviceId != nil else {
        throw HubError(
          .forbidden, "wrong_token_kind",
          "this is a \(credential.kind.rawValue) token, which cannot upload; devices use their own device token")
      }
      return Granted(credential: credential, presented: presented)
    case .reader(let page):
      let (credential, presented) = try await reader(request, device: device, page: page)
      return Granted(credential: credential, presented: presented)
    case .readerOfAll:
      let (credential, presented) = try await reader(request, device: nil)
      guard credential.deviceId == nil else {
        throw HubError(
          .forbidden, "forbidden_device",
          "this route covers every device: it needs a reader token of all devices ('token create --reader')")
      }
      return Granted(credential: credential, presented: presented)
    case .kiosk:
      guard let device else { throw HubError.internalError }
      let (credential, presented) = try await kiosk(request, device: device)
      return Granted(credential: credential, presented: presented)
    }
  }

  /// A reader token that may read `device` (nil: the route narrows a one-device reader itself), within its rate.
  func reader(_ request: Request, device: String?, page: Bool = false) async throws -> (Credential, Presented) {
    let (credential, presented, hash) = try await authenticate(request, page: page)
    guard credential.kind == .reader else {
      throw HubError(
        .forbidden, "wrong_token_kind",
        "this is a \(credential.kind.rawValue) token; reading needs a reader token "
          + "('stressmon-hub token create --reader [--device ID]')")
    }
    if let device, !credential.reads(device) {
      throw Self.otherDevice(credential, device)
    }
    try limit(hash: hash, spend: true)
    return (credential, presented)
  }

  /// A kiosk key of `device`, or a reader of it, within its rate.
  func kiosk(_ request: Request, device: String) async throws -> (Credential, Presented) {
    let (credential, presented, hash) = try await authenticate(request, page: true)
    guard credential.kind != .device else {
      throw HubError(
        .forbidden, "wrong_token_kind", "this is a device token, which cannot read; open the kiosk with its kiosk key")
    }
    let allowed = (credential.kind == .kiosk && credential.deviceId == device) || credential.reads(device)
    guard allowed else { throw Self.otherDevice(credential, device) }
    try limit(hash: hash, spend: true)
    return (credential, presented)
  }

  /// 403 for a token of another device.
  static func otherDevice(_ credential: Credential, _ device: String) -> HubError {
    HubError(
      .forbidden, "forbidden_device",
      "this \(credential.kind.rawValue) token is for device '\(credential.deviceId ?? "?")' and cannot read \(device)")
  }

  // MARK: - Private

  /// The credential of the token the request carries. 401 without one: for pages with a `Basic` challenge, so
  /// a browser asks for it (any user name, the token as password).
  private func authenticate(_ request: Request, page: Bool) async throws -> (Credential, Presented, String) {
    let challenge = page ? "Basic realm=\"stressmon-hub\", charset=\"UTF-8\"" : "Bearer"
    if request.headers[.authorization] != nil, request.uri.queryParameters.get("key") != nil {
      throw HubError(
        .unauthorized, "unauthorized", "a token came both in the Authorization header and as ?key=; send it one way",
        headers: [.wwwAuthenticate: challenge])
    }
    guard let (token, presented) = Self.token(in: request) else {
      throw HubError(
        .unauthorized, "unauthorized",
        page
          ? "this page needs a reader token: open it with ?key=TOKEN or give the token as the password"
          : "no token; send 'Authorization: Bearer <token>' (stressmon-hub token create)",
        headers: [.wwwAuthenticate: challenge])
    }
    let hash = HubTokens.hash(token)
    // A token already over its rate is refused here, before the database: a client that ignores 429 costs a hash.
    try limit(hash: hash, spend: false)
    guard let credential = try await storage.credential(forTokenHash: hash) else {
      throw HubError(
        .unauthorized, "unauthorized", "unknown or revoked token; create one with 'stressmon-hub token create'",
        headers: [.wwwAuthenticate: challenge])
    }
    touch(credential)
    return (credential, presented, hash)
  }

  /// The token in the request: Bearer, Basic password, or `key` query parameter.
  static func token(in request: Request) -> (String, Presented)? {
    let key = request.uri.queryParameters.get("key")
    if let header = request.headers[.authorization] {
      // RFC 6750 §2: one way per request. A header and a ?key= together are refused, whichever is valid.
      guard key == nil else { return nil }
      let parts = header.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { return nil }
      let value = parts[1].trimmingCharacters(in: .whitespaces)
      switch parts[0].lowercased() {
      case "bearer":
        return value.isEmpty ? nil : (value, .header)
      case "basic":
        guard let data = Data(base64Encoded: value), let text = String(data: data, encoding: .utf8),
          let colon = text.firstIndex(of: ":")
        else { return nil }
        let password = String(text[text.index(after: colon)...])
        return password.isEmpty ? nil : (password, .header)
      default:
        return nil
      }
    }
    if let key, !key.isEmpty {
      return (key, .query(key))
    }
    return nil
  }

  /// Token bucket per token: `readBurst` deep, refilled at `readRate` a second. With `spend` a read is taken
  /// (the bucket is made on a token's first read); without, a token with an empty bucket is refused.
  private func limit(hash: String, spend: Bool) throws {
    let now = options.now()
    let (rate, burst) = (options.readRate, options.readBurst)
    let wait = buckets.withLock { buckets -> Double? in
      guard var bucket = buckets[hash] ?? (spend ? (burst, now) : nil) else { return nil }
      bucket.level = min(burst, bucket.level + max(0, now - bucket.at) * rate)
      bucket.at = now
      defer { buckets[hash] = bucket }
      guard bucket.level >= 1 else { return (1 - bucket.level) / rate }
      if spend { bucket.level -= 1 }
      return nil
    }
    guard let wait else { return }
    metrics.rateLimited(tokenId: HubTokens.id(forHash: hash))
    let seconds = max(1, Int(wait.rounded(.up)))
    throw HubError(
      .tooManyRequests, "rate_limited",
      "this token reads more than \(options.readRate.formatted()) times a second; slow down and retry in \(seconds) s",
      headers: [.retryAfter: "\(seconds)"])
  }

  /// Writes the token's last use: the first time, then at most once a minute, in the background, so that no read
  /// waits for a write (with synchronous=FULL a write waits for the disk).
  private func touch(_ credential: Credential) {
    let now = options.now()
    let due = touched.withLock { touched -> Bool in
      guard now - (touched[credential.tokenId] ?? -.infinity) >= Self.touchInterval else { return false }
      touched[credential.tokenId] = now
      return true
    }
    guard due else { return }
    Task { [storage, logger] in
      do {
        try await storage.touchToken(id: credential.tokenId, at: now)
      } catch {
        logger.warning(
          "could not record a token's last use", metadata: ["token": "\(credential.tokenId)", "error": "\(error)"])
      }
    }
  }
}
