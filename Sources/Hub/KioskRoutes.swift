import Hummingbird
import SyncWire

/// The kiosk: `/kiosk/{device}` (the page) and `/kiosk/{device}/panel` (the part that changes, which the page
/// fetches every few seconds), with a kiosk key of the device or a reader of it. Each reads the newest window and
/// one window per trend slot (a bounded number of index probes) and draws on the render threads.
struct KioskRoutes: Sendable {
  let storage: any HubStorage
  let access: HubAccess
  let options: HubOptions
  let renderer: PageRenderer

  func add(to router: Router<HubRequestContext>) {
    let kiosks = router.group().add(middleware: HubAccessMiddleware(access, .kiosk, device: "device"))
    kiosks.get("/kiosk/:device") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("device"))
      let presented = try context.credential().presented
      let view = try await view(device)
      let panelURL = PageLinks(presented).path("/kiosk/\(device)/panel")
      return HTMLPage.response(try await renderer.run { KioskPage.document(view, panelURL: panelURL) })
    }

    kiosks.get("/kiosk/:device/panel") { _, context in
      let device = try HubRoutes.validDevice(context.parameters.get("device"))
      let view = try await view(device)
      return HTMLPage.response(try await renderer.run { KioskPage.panel(view) })
    }
  }

  private func view(_ device: String) async throws -> KioskView {
    let now = options.now()
    let record = try await storage.latest(deviceId: device, notAfter: now + SyncAPI.maxClockSkew)
    let buckets = KioskView.buckets(now: now, options: options)
    let trend = record == nil ? [] : try await storage.trends(deviceIds: [device], buckets: buckets)[device] ?? []
    return KioskView(deviceId: device, record: record, now: now, options: options, trend: trend)
  }
}
