import DayReport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncWire

/// The fleet pages, behind a reader token: `/devices` (a page of the devices the token may read, sorted, with each
/// one's category, level, HRV, trend, backlog and whether it went quiet), one day of a device,
/// `/devices/{id}/days/{YYYY-MM-DD}` (the `DayReport` picture, zoomed to the measured span, as inline SVG; the
/// picture alone at `….svg`), and one week, `/devices/{id}/weeks/{YYYY-MM-DD}`. Days are local days of the hub's
/// time zone (TZ). Every page reads a bounded number of rows and is drawn on the render threads.
struct FleetRoutes: Sendable {
  let storage: any HubStorage
  let access: HubAccess
  let options: HubOptions
  let renderer: PageRenderer

  func add(to router: Router<HubRequestContext>) {
    router.group().add(middleware: HubAccessMiddleware(access, .reader(page: true))).get("/devices") { request, context in
      let (credential, presented) = try context.credential().pair
      let query = try PageQuery(request.uri.queryParameters, defaultLimit: options.fleetPageSize)
      let now = options.now()
      let page = try await storage.devicePage(DevicePageRequest(
        order: query.order, descending: query.descending, offset: query.offset, limit: query.limit,
        deviceId: credential.deviceId, notAfter: now + SyncAPI.maxClockSkew, staleBefore: now - options.staleAfter))
      let buckets = KioskView.buckets(now: now, options: options)
      let trends = try await storage.trends(deviceIds: page.devices.map(\.deviceId), buckets: buckets)
      let view = FleetView(
        page: page, trends: trends, buckets: buckets, query: query, now: now, options: options,
        links: PageLinks(presented))
      return HTMLPage.response(try await renderer.run { query.live ? FleetPage.live(view) : FleetPage.document(view) })
    }

    let devices = router.group().add(middleware: HubAccessMiddleware(access, .reader(page: true), device: "id"))
    devices.get("/devices/:id") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("id"))
      let presented = try context.credential().presented
      let now = options.now()
      let latest = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
      let day = LocalDay.containing(epochSeconds: latest?.windowEnd ?? now)
      var response = Response(status: .seeOther)
      response.headers[.location] = PageLinks(presented).day(device, day)
      return response
    }

    devices.get("/devices/:id/days/:day") { request, context in
      let device = try HubRoutes.validDevice(context.parameters.get("id"))
      let text = context.parameters.get("day") ?? ""
      let asFile = text.hasSuffix(".svg")
      let day = try Self.day(asFile ? String(text.dropLast(4)) : text, suffix: "(or YYYY-MM-DD.svg)")
      let presented = try context.credential().presented
      let query = try PageQuery(request.uri.queryParameters, defaultLimit: options.dayPageRows)
      let rows = try await storage.dayPayloads(
        deviceId: device, windowEnd: day.start..<day.end, offset: query.offset, limit: query.limit)
      let page = DayPageView(
        device: device, day: day, rows: rows.total, page: query.page, pageRows: query.limit,
        wholeDay: query.wholeDay, now: options.now(), links: PageLinks(presented))
      let payloads = rows.payloads
      guard !asFile else {
        let svg = try await renderer.run {
          // The picture `stressmon report` draws: the whole day, with its title and summary.
          DayReport(records: try StoredPayload.decode(payloads), day: day, options: .init(now: page.now)).svg()
        }
        return Response(
          status: .ok,
          headers: [
            .contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-store",
            HTMLPage.referrerPolicy: "no-referrer",
          ],
          body: ResponseBody(byteBuffer: ByteBuffer(string: svg)))
      }
      return HTMLPage.response(
        try await renderer.run { DayPage.document(page, records: try StoredPayload.decode(payloads)) })
    }

    devices.get("/devices/:id/weeks/:day") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("id"))
      let day = try Self.day(context.parameters.get("day") ?? "", suffix: "")
      let presented = try context.credential().presented
      let week = WeekView.days(containing: day)
      let buckets = WeekView.buckets(week)
      let points = try await storage.trends(deviceIds: [device], buckets: buckets)[device] ?? []
      let view = WeekView(
        device: device, days: week, buckets: buckets, points: points, now: options.now(), links: PageLinks(presented))
      return HTMLPage.response(try await renderer.run { WeekPage.document(view) })
    }
  }

  /// A `YYYY-MM-DD` path segment as a local day: 400 when it is not shaped like one, 404 when no such day exists.
  static func day(_ date: String, suffix: String) throws -> LocalDay {
    do {
      return try LocalDay.parse(date)
    } catch .malformed {
      let rule = "the day must be a date YYYY-MM-DD \(suffix)".trimmingCharacters(in: .whitespaces)
      throw HubError(.badRequest, "invalid_day", rule)
    } catch {
      throw HubError(.notFound, "no_such_day", error.description)
    }
  }
}

extension StoredPayload {
  /// Rows as stored (JSON), decoded: on a render thread, not on a request's.
  static func decode(_ payloads: [String]) throws -> [MeasurementRecord] {
    try payloads.map { try decode($0) }
  }
}
