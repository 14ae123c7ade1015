import CompressNIO
import Foundation
import Hub
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Sync
import SyncWire
import Testing

/// One check's world: a fresh device with its write token, a reader of every device, the storage, and requests
/// through HummingbirdTesting's client.
struct HubCheckContext {
  let api: APIClient
  let storage: any HubStorage
  let device: String
  let metrics: HubMetrics

  /// Runs `body` against the real router over `storage` (migrated), with a fresh device and its tokens.
  static func run(
    on storage: any HubStorage, options: HubOptions = HubOptions(),
    _ body: @Sendable (HubCheckContext) async throws -> Void
  ) async throws {
    try await storage.migrate()
    let device = "dev-\(UInt32.random(in: 0...UInt32.max))"
    let now = Date().timeIntervalSince1970
    let token = try await HubTokens.create(deviceId: device, storage: storage, now: now)
    let reader = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
    let metrics = HubMetrics()
    var logger = Logger(label: "test.hub")
    logger.logLevel = .error
    let app = Application(
      router: HubRoutes.router(storage: storage, options: options, metrics: metrics, logger: logger), logger: logger)
    try await app.test(.router) { client in
      let api = APIClient(client: client, token: token, reader: reader)
      try await body(HubCheckContext(api: api, storage: storage, device: device, metrics: metrics))
    }
  }
}

/// Requests through HummingbirdTesting's client: ingest with the device token, reads with the reader token.
struct APIClient: Sendable {
  enum Auth: Sendable {
    case own
    case token(String)
    case none
  }

  let client: any TestClientProtocol
  /// The device's write token.
  let token: String
  /// A reader token of every device.
  let reader: String

  func ingest(_ batch: IngestRequest, auth: Auth = .own) async throws -> TestResponse {
    try await post(body: ByteBuffer(bytes: try SyncBody.encode(batch)), gzip: true, auth: auth)
  }

  func post(body: ByteBuffer, gzip: Bool, auth: Auth = .own) async throws -> TestResponse {
    var headers: HTTPFields = [.contentType: "application/json"]
    switch auth {
    case .own: headers[.authorization] = "Bearer \(token)"
    case .token(let other): headers[.authorization] = "Bearer \(other)"
    case .none: break
    }
    if gzip { headers[.contentEncoding] = "gzip" }
    return try await client.execute(uri: SyncAPI.measurementsPath, method: .post, headers: headers, body: body)
  }

  /// GET with the reader token (`.own`), another token, or none.
  func get(_ uri: String, auth: Auth = .own, headers extra: HTTPFields = [:]) async throws -> TestResponse {
    var headers = extra
    switch auth {
    case .own: headers[.authorization] = "Bearer \(reader)"
    case .token(let other): headers[.authorization] = "Bearer \(other)"
    case .none: break
    }
    return try await client.execute(uri: uri, method: .get, headers: headers)
  }
}

extension TestResponse {
  func decoded<T: Decodable>(_ type: T.Type) throws -> T {
    try JSONDecoder().decode(type, from: Data(buffer: body))
  }

  var text: String { String(buffer: body) }
}

extension Data {
  init(buffer: ByteBuffer) {
    self = buffer.withUnsafeReadableBytes { Data($0) }
  }
}
