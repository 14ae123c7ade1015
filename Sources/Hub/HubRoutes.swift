import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SyncWire

/// The hub's HTTP API: `/v1` sync endpoints, `/healthz`, `/metrics`, `/openapi.yaml`, the kiosk page and the
/// fleet pages. Every read needs a credential (see `HubAccess`); only `/healthz` and `/openapi.yaml` are open.
public enum HubRoutes {
  public static let version = ProductVersion.text

  /// The router, ready for `Application(router:)` or HummingbirdTesting. Routes are grouped by the token they
  /// need; each group's `HubAccessMiddleware` checks it before the handler runs.
  public static func router(
    storage: any HubStorage, options: HubOptions = HubOptions(), metrics: HubMetrics = HubMetrics(),
    logger: Logger = Logger(label: "stressmon.hub"), tls: Bool = false
  ) -> Router<HubRequestContext> {
    let router = Router(context: HubRequestContext.self)
    router.add(middleware: SecurityHeadersMiddleware(tls: tls))
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    let routes = RouteTable()
    router.add(middleware: HubFallbackMiddleware(routes: routes))
    let access = HubAccess(storage: storage, options: options, metrics: metrics, logger: logger)
    let ingest = IngestHandler(storage: storage, options: options, metrics: metrics)
    let renderer = PageRenderer()

    router.group().add(middleware: HubAccessMiddleware(access, .device))
      .post(RouterPath(SyncAPI.measurementsPath)) { request, context in
        let device = try context.credential().credential.deviceId ?? ""
        return try await ingest.handle(request, device: device, logger: context.logger)
      }

    let readers = router.group().add(middleware: HubAccessMiddleware(access, .reader(page: false)))
    readers.get(RouterPath(SyncAPI.feedPath)) { request, context in
      let query = try FeedQuery.decode(request, context: context)
      let credential = try context.credential().credential
      if let device = query.device, !credential.reads(device) { throw HubAccess.otherDevice(credential, device) }
      // A reader of one device reads its feed whether or not it names the device.
      let device = query.device ?? credential.deviceId
      return feedResponse(try await storage.feedPayloads(deviceId: device, after: query.after, limit: query.limit))
    }
    router.group().add(middleware: HubAccessMiddleware(access, .reader(page: false), device: "id"))
      .get("/v1/devices/:id/latest") { _, context in
        let device = try validDevice(context.parameters.get("id"))
        let now = options.now()
        let record = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
        return JSONResponse.make(LatestResponse(deviceId: device, record: record, serverTime: now))
      }
    router.group().add(middleware: HubAccessMiddleware(access, .readerOfAll))
      .get("/metrics") { _, _ in
        var text = ByteBuffer(bytes: metrics.exposition())
        text.writeString(try await DeviceGauges.exposition(storage: storage, options: options))
        return Response(
          status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
          body: ResponseBody(byteBuffer: text))
      }

    router.get(RouterPath(SyncAPI.healthPath)) { _, context in
      do {
        try await storage.ping()
      } catch {
        context.logger.error("health check failed", metadata: ["error": "\(error)"])
        throw HubError(.serviceUnavailable, "storage_unavailable", "the \(storage.kind) database does not answer")
      }
      return JSONResponse.make(HealthResponse(status: "ok", storage: storage.kind, version: version))
    }
    router.get("/openapi.yaml") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/yaml; charset=utf-8", .cacheControl: "no-cache"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
    }

    FleetRoutes(storage: storage, access: access, options: options, renderer: renderer).add(to: router)
    KioskRoutes(storage: storage, access: access, options: options, renderer: renderer).add(to: router)
    PageScript.add(to: router)
    routes.record(router.routes)
    return router
  }

  static func validDevice(_ id: String?, parameter: String = "device id") throws -> String {
    guard let id, SyncIdentifiers.isValidDeviceId(id) else {
      throw HubError(.badRequest, "invalid_device", "\(parameter) must be \(SyncIdentifiers.deviceIdRule)")
    }
    return id
  }

  /// A `FeedPage` built from the stored JSON of its rows, without decoding them (the same bytes
  /// `JSONResponse.make(FeedPage(…))` would give, keys sorted, rows as stored).
  static func feedResponse(_ slice: RawFeedSlice) -> Response {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(slice.rows.reduce(64) { $0 + $1.utf8.count + 1 })
    buffer.writeString("{\"has_more\":\(slice.hasMore),\"next_cursor\":\"\(slice.lastSequence)\",\"rows\":[")
    for (index, payload) in slice.rows.enumerated() {
      if index > 0 { buffer.writeStaticString(",") }
      buffer.writeString(payload)
    }
    buffer.writeStaticString("]}")
    return Response(
      status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: buffer))
  }
}

/// The feed's query, `?device=ID&since=CURSOR&limit=N` (and the `key` a bookmark may carry, not read here).
struct FeedQuery: Decodable, Sendable {
  var device: String?
  /// The sequence number after which rows are wanted: the previous page's `next_cursor`; 0 for the start.
  var after: Int64
  var limit: Int

  enum CodingKeys: String, CodingKey {
    case device, since, limit
  }

  init(from decoder: any Decoder) throws {
    let query = try decoder.container(keyedBy: CodingKeys.self)
    device = try query.decodeIfPresent(String.self, forKey: .device).map {
      try HubRoutes.validDevice($0, parameter: "device")
    }
    after = 0
    if let since = try query.decodeIfPresent(String.self, forKey: .since), !since.isEmpty {
      let digits = since.utf8.allSatisfy { (0x30...0x39).contains($0) }
      guard since.utf8.count <= 18, digits, let value = Int64(since) else {
        throw HubError(.badRequest, "invalid_query", "since '\(since.prefix(40))' is not a cursor from a previous page")
      }
      after = value
    }
    limit = try query.decodeIfPresent(Int.self, forKey: .limit) ?? 100
    guard (1...SyncAPI.maxFeedLimit).contains(limit) else { throw Self.badLimit }
  }

  static let badLimit = HubError(
    .badRequest, "invalid_query", "limit must be a whole number within 1-\(SyncAPI.maxFeedLimit)")

  /// The request's query, decoded by Hummingbird's `decodeQuery`; whatever it cannot read is `invalid_query`.
  static func decode(_ request: Request, context: some RequestContext) throws -> FeedQuery {
    do {
      return try request.uri.decodeQuery(as: FeedQuery.self, context: context)
    } catch let error as HubError {
      throw error
    } catch let error as HTTPError {
      guard error.body?.contains("`limit`") != true else { throw badLimit }
      throw HubError(.badRequest, "invalid_query", error.body ?? "the query does not parse")
    } catch {
      // URLEncodedFormDecoder's own refusals (a key given twice)
      throw HubError(.badRequest, "invalid_query", "the query does not parse: give device, since and limit once each")
    }
  }
}

/// HTML answers: no caching (health data), no referrer (a `?key=` URL must not leak), a strict policy.
enum HTMLPage {
  static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

  /// The start of every page: doctype, language, charset, viewport, title (escaped), style and the page script
  /// (a file: no inline script). A page that updates itself names `refreshSeconds`: a reload then, for a
  /// browser without scripts.
  static func head(title: String, style: String, refreshSeconds: Int? = nil) -> String {
    let fallback = refreshSeconds.map { "\n<noscript><meta http-equiv=\"refresh\" content=\"\($0)\"></noscript>" } ?? ""
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(HTML.escape(title))</title>\(fallback)
      \(PageScript.tag)
      <style>
      \(style)
      </style>
      </head>
      """
  }

  /// A page's answer, under the pages' policy (`SecurityHeaders.contentSecurityPolicy`).
  static func response(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.referrerPolicy: "no-referrer",
        .contentSecurityPolicy: SecurityHeaders.contentSecurityPolicy,
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
  }
}
