import DayReport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SyncWire

/// The fleet pages, behind a reader token: `/devices` (every device the token may read, with its current
/// category, last window, last upload, backlog and a flag when it went quiet) and one day of a device,
/// `/devices/{id}/days/{YYYY-MM-DD}`, drawn by `DayReport` from the hub's rows: the same picture as
/// `stressmon report`, as inline SVG (and as a file at `…/{YYYY-MM-DD}.svg`). Days are local days of the hub's
/// time zone (TZ).
struct FleetRoutes: Sendable {
  let storage: any HubStorage
  let access: HubAccess
  let options: HubOptions

  func add(to router: Router<HubRequestContext>) {
    router.group().add(middleware: HubAccessMiddleware(access, .reader(page: true))).get("/devices") { _, context in
      let (credential, presented) = try context.credential().pair
      let now = options.now()
      var devices = try await storage.devices(notAfter: now + SyncAPI.maxClockSkew)
      if let own = credential.deviceId { devices = devices.filter { $0.deviceId == own } }
      let links = PageLinks(presented)
      return HTMLPage.response(FleetPage.document(devices, now: now, staleAfter: options.staleAfter, links: links))
    }

    let days = router.group().add(middleware: HubAccessMiddleware(access, .reader(page: true), device: "id"))
    days.get("/devices/:id") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("id"))
      let presented = try context.credential().presented
      let now = options.now()
      let latest = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
      let day = LocalDay.containing(epochSeconds: latest?.windowEnd ?? now)
      var response = Response(status: .seeOther)
      response.headers[.location] = PageLinks(presented).day(device, day)
      return response
    }

    days.get("/devices/:id/days/:day") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("id"))
      let text = context.parameters.get("day") ?? ""
      let asFile = text.hasSuffix(".svg")
      let date = asFile ? String(text.dropLast(4)) : text
      let shaped = date.utf8.enumerated().allSatisfy { [4, 7].contains($0) ? $1 == 0x2D : (0x30...0x39).contains($1) }
      guard date.utf8.count == 10, shaped else {
        throw HubError(.badRequest, "invalid_day", "the day must be a date YYYY-MM-DD (or YYYY-MM-DD.svg)")
      }
      guard let day = LocalDay(parsing: date) else {
        throw HubError(.notFound, "no_such_day", "\(date) is not a day of the calendar (or not within 1970-2199)")
      }
      let presented = try context.credential().presented
      let rows = try await storage.rows(deviceId: device, windowEnd: day.start..<day.end)
      let report = DayReport(records: rows, day: day)
      guard !asFile else {
        return Response(
          status: .ok,
          headers: [
            .contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-store",
            HTMLPage.referrerPolicy: "no-referrer",
          ],
          body: ResponseBody(byteBuffer: ByteBuffer(string: report.svg())))
      }
      return HTMLPage.response(DayPage.document(device: device, day: day, report: report, links: PageLinks(presented)))
    }
  }
}

/// Links between the fleet pages. A token that came as `?key=` goes on with every link (a bookmark of a kiosk
/// or fleet page keeps working); one that came in a header is never written into the page.
struct PageLinks: Sendable {
  let key: String?

  init(_ presented: HubAccess.Presented) {
    if case .query(let key) = presented { self.key = key } else { key = nil }
  }

  func path(_ path: String) -> String {
    guard let key else { return path }
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    return path + "?key=" + (key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
  }

  var fleet: String { path("/devices") }
  func day(_ device: String, _ day: LocalDay) -> String { path("/devices/\(device)/days/\(day)") }
  func svg(_ device: String, _ day: LocalDay) -> String { path("/devices/\(device)/days/\(day).svg") }
}
