import CompressNIO
import Foundation
import Hummingbird
import Logging
import SyncWire

/// Settings of a running hub that routes read.
public struct HubOptions: Sendable {
  /// A kiosk shows its stale-data warning when the newest window ended longer ago than this (seconds). Windows
  /// are 60 s and sync runs every minute, so 10 minutes without data means the device or its link is off.
  public var staleAfter: Double
  /// How often the kiosk page asks for fresh data (seconds).
  public var kioskRefresh: Double
  /// Wall clock, seconds since the Unix epoch (injected for tests of staleness).
  public var now: @Sendable () -> Double

  public init(
    staleAfter: Double = 600, kioskRefresh: Double = 10,
    now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
  ) {
    self.staleAfter = staleAfter
    self.kioskRefresh = kioskRefresh
    self.now = now
  }
}

/// The hub's HTTP API: `/v1` sync endpoints, `/healthz`, and the kiosk page.
public enum HubRoutes {
  public static let version = "0.1.0"

  /// The router, ready for `Application(router:)` or HummingbirdTesting.
  public static func router(
    storage: any HubStorage, options: HubOptions = HubOptions(), logger: Logger = Logger(label: "stressmon.hub")
  ) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: HubErrorMiddleware(logger: logger))
    let ingest = IngestHandler(storage: storage, logger: logger)

    router.post(RouterPath(SyncAPI.measurementsPath)) { request, _ in try await ingest.handle(request) }

    router.get(RouterPath(SyncAPI.feedPath)) { request, _ in
      let query = request.uri.queryParameters
      let device = query.get("device")
      if let device, !SyncIdentifiers.isValidDeviceId(device) {
        throw HubError(.badRequest, "invalid_query", "device '\(device)' is not a valid device id")
      }
      var after: Int64 = 0
      if let since = query.get("since"), !since.isEmpty {
        guard let value = Int64(since), value >= 0 else {
          throw HubError(.badRequest, "invalid_query", "since '\(since)' is not a cursor from a previous page")
        }
        after = value
      }
      var limit = 100
      if let text = query.get("limit") {
        guard let value = Int(text), (1...SyncAPI.maxFeedLimit).contains(value) else {
          throw HubError(.badRequest, "invalid_query", "limit must be a whole number within 1-\(SyncAPI.maxFeedLimit)")
        }
        limit = value
      }
      let slice = try await storage.feed(deviceId: device, after: after, limit: limit)
      return JSONResponse.make(FeedPage(rows: slice.rows, nextCursor: String(slice.lastSequence), hasMore: slice.hasMore))
    }

    router.get("/v1/devices/:id/latest") { _, context in
      let device = try validDevice(context.parameters.get("id"))
      let record = try await storage.latest(deviceId: device)
      return JSONResponse.make(LatestResponse(deviceId: device, record: record, serverTime: options.now()))
    }

    router.get(RouterPath(SyncAPI.healthPath)) { _, _ in
      do {
        try await storage.ping()
      } catch {
        logger.error("health check failed", metadata: ["error": "\(error)"])
        throw HubError(.serviceUnavailable, "storage_unavailable", "the \(storage.kind) database does not answer")
      }
      return JSONResponse.make(HealthResponse(status: "ok", storage: storage.kind, version: version))
    }

    router.get("/kiosk/:device") { _, context in
      let device = try validDevice(context.parameters.get("device"))
      let view = KioskView(deviceId: device, record: try await storage.latest(deviceId: device), now: options.now(), options: options)
      return htmlResponse(KioskPage.document(view))
    }

    router.get("/kiosk/:device/panel") { _, context in
      let device = try validDevice(context.parameters.get("device"))
      let view = KioskView(deviceId: device, record: try await storage.latest(deviceId: device), now: options.now(), options: options)
      return htmlResponse(KioskPage.panel(view))
    }
    return router
  }

  private static func validDevice(_ id: String?) throws -> String {
    guard let id, SyncIdentifiers.isValidDeviceId(id) else {
      throw HubError(.badRequest, "invalid_device", "device id must be 1-64 characters of A-Z a-z 0-9 . _ -")
    }
    return id
  }

  private static func htmlResponse(_ html: String) -> Response {
    Response(
      status: .ok,
      headers: [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy: "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:",
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
  }
}

/// `POST /v1/measurements`: authenticate, read and inflate the body within limits, decode, authorise every row,
/// validate rows one by one, store the valid ones in one transaction. Every refusal happens before storage, so
/// a refused request stores nothing.
struct IngestHandler: Sendable {
  let storage: any HubStorage
  let logger: Logger

  func handle(_ request: Request) async throws -> Response {
    let device = try await authenticate(request)
    let body = try await readBody(request)
    let batch = try decode(body)
    guard batch.deviceId == device else {
      throw HubError(
        .forbidden, "forbidden_device",
        "this token belongs to device '\(device)' and cannot write for device '\(batch.deviceId)'")
    }
    if let foreign = batch.records.first(where: { $0.deviceId != device }) {
      throw HubError(
        .forbidden, "forbidden_device",
        "row \(foreign.id) is of device '\(foreign.deviceId)'; this token writes only device '\(device)'")
    }
    guard batch.records.count <= SyncAPI.maxBatchRows else {
      throw HubError(
        .contentTooLarge, "payload_too_large",
        "the batch has \(batch.records.count) rows; send at most \(SyncAPI.maxBatchRows) per request")
    }
    var results: [RowResult] = []
    var valid: [String: MeasurementRecord] = [:]
    var order: [String] = []
    for record in batch.records {
      if let problem = record.validationProblem() {
        results.append(RowResult(id: record.id, status: .rejected, reason: problem))
        continue
      }
      // The same id twice in one batch: keep the version the conflict rule keeps.
      if let earlier = valid[record.id] {
        valid[record.id] = MeasurementRecord.resolve(existing: earlier, incoming: record)
      } else {
        order.append(record.id)
        valid[record.id] = record
      }
      results.append(RowResult(id: record.id, status: .accepted))
    }
    let foreign = try await storage.upsert(deviceId: device, records: order.compactMap { valid[$0] })
    if !foreign.isEmpty {
      results = results.map { row in
        guard foreign.contains(row.id) else { return row }
        return RowResult(id: row.id, status: .rejected, reason: "id \(row.id) already belongs to another device; give the row a new UUID")
      }
    }
    let response = IngestResponse(results: results)
    logger.info(
      "ingest", metadata: ["device": "\(device)", "accepted": "\(response.acceptedCount)", "rejected": "\(response.rejectedCount)"])
    return JSONResponse.make(response)
  }

  private func authenticate(_ request: Request) async throws -> String {
    guard let header = request.headers[.authorization] else {
      throw HubError.unauthorized("no Authorization header; send 'Authorization: Bearer <device token>'")
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
      throw HubError.unauthorized("the Authorization header must be 'Bearer <device token>'")
    }
    guard let device = try await storage.device(forTokenHash: HubTokens.hash(String(parts[1]))) else {
      throw HubError.unauthorized("unknown token; create one with 'stressmon-hub token create --device ID'")
    }
    return device
  }

  private func readBody(_ request: Request) async throws -> ByteBuffer {
    let limit = SyncAPI.maxBodyBytes
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
      throw HubError(.contentTooLarge, "payload_too_large", "the body is \(length) bytes; the limit is \(limit)")
    }
    var buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: limit)
    } catch let error as HTTPError where error.status == .contentTooLarge {
      throw HubError(.contentTooLarge, "payload_too_large", "the body is larger than the limit of \(limit) bytes")
    }
    switch request.headers[.contentEncoding]?.lowercased() {
    case nil, "identity":
      return buffer
    case "gzip":
      do {
        return try buffer.decompress(with: .gzip(), maxSize: limit)
      } catch let error as CompressNIOError where error == .bufferOverflow {
        throw HubError(.contentTooLarge, "payload_too_large", "the gzip body inflates past the limit of \(limit) bytes")
      } catch {
        throw HubError(.badRequest, "malformed_body", "Content-Encoding says gzip but the body is not valid gzip")
      }
    case let other?:
      throw HubError(.unsupportedMediaType, "unsupported_encoding", "Content-Encoding '\(other)' is not supported; use gzip or none")
    }
  }

  private func decode(_ body: ByteBuffer) throws -> IngestRequest {
    do {
      return try JSONDecoder().decode(IngestRequest.self, from: Data(buffer: body))
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
      throw HubError(.badRequest, "malformed_json", "the body is not valid JSON: \(context.debugDescription)")
    } catch let error as DecodingError {
      throw HubError(.unprocessableContent, "invalid_batch", Self.describe(error))
    }
  }

  /// "records[3].stress_level: expected Double" rather than Foundation's long dump.
  static func describe(_ error: DecodingError) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined().drop { $0 == "." }.description
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "missing field '\(key.stringValue)' at \(path(context.codingPath).isEmpty ? "top level" : path(context.codingPath))"
    case .typeMismatch(let type, let context):
      return "\(path(context.codingPath)): expected \(type)"
    case .valueNotFound(let type, let context):
      return "\(path(context.codingPath)): expected \(type), found null"
    case .dataCorrupted(let context):
      return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return "the body does not match the ingest schema"
    }
  }
}

extension Data {
  init(buffer: ByteBuffer) {
    self = buffer.withUnsafeReadableBytes { Data($0) }
  }
}
