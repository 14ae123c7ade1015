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

  /// The router, ready for `Application(router:)` or HummingbirdTesting.
  public static func router(
    storage: any HubStorage, options: HubOptions = HubOptions(), metrics: HubMetrics = HubMetrics(),
    logger: Logger = Logger(label: "stressmon.hub")
  ) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    let routes = RouteTable()
    router.add(middleware: HubErrorMiddleware(routes: routes))
    let access = HubAccess(storage: storage, options: options, metrics: metrics, logger: logger)
    let ingest = IngestHandler(storage: storage, access: access, options: options, metrics: metrics)
    let pages = FleetRoutes(storage: storage, access: access, options: options)

    router.post(RouterPath(SyncAPI.measurementsPath)) { request, context in
      try await ingest.handle(request, logger: context.logger)
    }

    router.get(RouterPath(SyncAPI.feedPath)) { request, _ in
      let query = request.uri.queryParameters
      var device = try query.get("device").map { try validDevice($0, parameter: "device") }
      let (credential, _) = try await access.reader(request, device: device)
      // A reader of one device reads its feed whether or not it names the device.
      device = device ?? credential.deviceId
      var after: Int64 = 0
      if let since = query.get("since"), !since.isEmpty {
        guard since.utf8.count <= 18, since.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(since) else {
          throw HubError(.badRequest, "invalid_query", "since '\(since.prefix(40))' is not a cursor from a previous page")
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
      return feedResponse(try await storage.feedPayloads(deviceId: device, after: after, limit: limit))
    }

    router.get("/v1/devices/:id/latest") { request, context in
      let device = try validDevice(context.parameters.get("id"))
      _ = try await access.reader(request, device: device)
      let now = options.now()
      let record = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
      return JSONResponse.make(LatestResponse(deviceId: device, record: record, serverTime: now))
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

    router.get("/metrics") { request, _ in
      let (credential, _) = try await access.reader(request, device: nil)
      guard credential.deviceId == nil else {
        throw HubError(.forbidden, "forbidden_device", "/metrics covers every device: it needs a reader token of all devices")
      }
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }

    router.get("/kiosk/:device") { request, context in
      let device = try validDevice(context.parameters.get("device"))
      _ = try await access.kiosk(request, device: device)
      return HTMLPage.response(KioskPage.document(try await kioskView(device, storage: storage, options: options)))
    }

    router.get("/kiosk/:device/panel") { request, context in
      let device = try validDevice(context.parameters.get("device"))
      _ = try await access.kiosk(request, device: device)
      return HTMLPage.response(KioskPage.panel(try await kioskView(device, storage: storage, options: options)))
    }

    pages.add(to: router)
    routes.record(router.routes)
    return router
  }

  static func validDevice(_ id: String?, parameter: String = "device id") throws -> String {
    guard let id, SyncIdentifiers.isValidDeviceId(id) else {
      throw HubError(.badRequest, "invalid_device", "\(parameter) must be \(SyncIdentifiers.deviceIdRule)")
    }
    return id
  }

  private static func kioskView(_ device: String, storage: any HubStorage, options: HubOptions) async throws -> KioskView {
    let now = options.now()
    let record = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
    return KioskView(deviceId: device, record: record, now: now, options: options)
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

/// HTML answers: no caching (health data), no referrer (a `?key=` URL must not leak), a strict policy.
enum HTMLPage {
  static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

  /// The start of every page: doctype, language, charset, viewport, title (escaped) and style.
  static func head(title: String, style: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>\(HTML.escape(title))</title>
    <style>
    \(style)
    </style>
    </head>
    """
  }

  static func response(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.referrerPolicy: "no-referrer",
        .contentSecurityPolicy:
          "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
      ],
      body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
  }
}
