import DayReport
import Foundation
@testable import Hub
import Raster
import StressModel
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The pages as a person sees them: Debian's headless Chromium against a hub on loopback, at a phone's size
/// (390×844 CSS px) and a wall display's (1920×1080). With `STRESSMON_SCREENSHOTS=DIR` the screenshots are kept
/// there (scripts/hub-screenshots copies them to docs/img for the README).
@Suite("Hub pages in headless Chromium", .serialized)
struct PagesBrowserTests {
  static let phone = (390, 844)
  static let wall = (1920, 1080)

  static func shot(_ url: String, _ size: (Int, Int), _ name: String, in directory: TemporaryDirectory) async throws
    -> PNGImage?
  {
    guard let chromium = KioskBrowserTests.chromium else { return nil }
    // Time for the page script to run (it writes local times) before the picture is taken.
    return try await KioskBrowserTests.screenshot(
      chromium, url, size: size, name: name, in: directory, extra: ["--virtual-time-budget=1500"])
  }

  /// Pixels within `tolerance` (sum of channel differences) of `colour`.
  static func count(_ image: PNGImage, _ colour: RGBColour, tolerance: Int = 6, rows: Range<Int>? = nil) -> Int {
    var found = 0
    for y in rows ?? (0..<image.height) {
      for x in 0..<image.width {
        let p = image.pixel(x, y)
        if abs(p.r - Int(colour.red)) + abs(p.g - Int(colour.green)) + abs(p.b - Int(colour.blue)) <= tolerance {
          found += 1
        }
      }
    }
    return found
  }

  static func skipWithoutChromium(_ what: String) -> Bool {
    guard KioskBrowserTests.chromium == nil else { return false }
    print("SKIPPED \(what): chromium not installed (scripts/setup --test installs it)")
    return true
  }

  @Test("the kiosk at phone and wall size: the category's colour, its patterned icon, the trend in band patterns")
  func kiosk() async throws {
    if Self.skipWithoutChromium("kiosk pages") { return }
    let directory = try TemporaryDirectory("pages-kiosk")
    defer { directory.remove() }
    let (hub, reader) = try await PageScenes.fleet(directory)
    defer { Task { await hub.stop() } }
    let high = PageScenes.names[.high]!
    let url = "\(hub.baseURL)/kiosk/\(high)?key=\(reader)"
    let wall = try await Self.shot(url, Self.wall, "hub-kiosk-wall.png", in: directory)
    let phone = try await Self.shot(url, Self.phone, "hub-kiosk-phone.png", in: directory)
    let stale = try await Self.shot(
      "\(hub.baseURL)/kiosk/wear-zero-1?key=\(reader)", Self.wall, "hub-kiosk-stale.png", in: directory)
    guard let wall, let phone, let stale else { return }
    for image in [wall, phone] {
      // The page is the category's colour, and the trend card shows every band in its own tints
      #expect(Self.count(image, StressCategory.high.colour) > image.width * image.height / 4)
      for category in StressCategory.allCases {
        // A solid pattern is all ink; the others show their ink and their paper
        if category.pattern != .solid {
          #expect(Self.count(image, ReportStyle.bandPaper(category), tolerance: 9) > 100, "\(category) band paper")
        }
        // Pattern pixels scaled by a fraction blend at their edges: a looser match
        #expect(Self.count(image, ReportStyle.bandInk(category), tolerance: 30) > 15, "\(category) band ink")
      }
    }
    // Stale: grey page, no full-colour category, the same bands in greys, the warning box in white
    #expect(Self.count(stale, KioskPage.staleBackground) > stale.width * stale.height / 4)
    #expect(Self.count(stale, StressCategory.mild.colour, tolerance: 30) < 50)
    #expect(Self.count(stale, ReportStyle.bandPaper(.mild).grey, tolerance: 6) > 100)
    #expect(Self.count(stale, KioskContrast.white, tolerance: 3) > 20_000)
  }

  @Test("the fleet at phone and wall size: categories in colour, the quiet device grey with its icon and pattern")
  func fleet() async throws {
    if Self.skipWithoutChromium("fleet pages") { return }
    let directory = try TemporaryDirectory("pages-fleet")
    defer { directory.remove() }
    let (hub, reader) = try await PageScenes.fleet(directory)
    defer { Task { await hub.stop() } }
    let url = "\(hub.baseURL)/devices?key=\(reader)&sort=stress"
    let wall = try await Self.shot(url, (1920, 820), "hub-fleet-wall.png", in: directory)
    _ = try await Self.shot(url, (Self.phone.0, 2400), "hub-fleet-phone.png", in: directory)
    guard let wall else { return }
    for category in StressCategory.allCases {
      #expect(Self.count(wall, category.colour) > 1_000, "\(category): its colour in its row")
    }
    // The quiet device's cell is grey, and its icon's ink is drawn on it (the pattern shows)
    let greyRows = (0..<wall.height).filter { y in
      (0..<wall.width).contains { x in
        let p = wall.pixel(x, y)
        return p.r == Int(KioskPage.staleBackground.red) && p.b == Int(KioskPage.staleBackground.blue)
      }
    }
    #expect(Self.count(wall, KioskPage.staleBackground) > 1_000)
    if let top = greyRows.first, let bottom = greyRows.last {
      #expect(Self.count(wall, KioskContrast.black, tolerance: 60, rows: top..<(bottom + 1)) > 150)
    }
  }

  @Test("times are shown in the browser's zone, ages against the hub's clock, a clock ahead is named")
  func localTime() async throws {
    guard let chromium = KioskBrowserTests.chromium else {
      print("SKIPPED local time test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("pages-time")
    defer { directory.remove() }
    let (hub, reader) = try await PageScenes.fleet(directory)
    defer { Task { await hub.stop() } }
    // A device whose clock runs four minutes ahead
    let now = Date().timeIntervalSince1970
    _ = try await HubTokens.create(deviceId: "clock-ahead", storage: hub.storage, now: now)
    let ahead = try kioskRecord(.relaxed, device: "clock-ahead", now: now, age: -240)
    _ = try await hub.storage.upsert(deviceId: "clock-ahead", records: [ahead], receivedAt: now, outboxPending: 0)
    let zone = "Asia/Kolkata"
    let dom = try await offload {
      try runProgram("/usr/bin/env", [
        "TZ=\(zone)", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=1500",
        "--user-data-dir=\(directory.file("profile"))", "--dump-dom", "\(hub.baseURL)/devices?key=\(reader)",
      ]).output
    }
    // Every <time> reads in the browser's zone: the hub wrote UTC, the script rewrote it
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone)!
    let stamps = dom.components(separatedBy: "data-ts=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
    #expect(stamps.count > 10)
    for part in dom.components(separatedBy: "<time ").dropFirst() {
      guard let stamp = Double(part.components(separatedBy: "data-ts=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "")
      else { continue }
      let c = calendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: stamp))
      let clock = String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
      let text = part.components(separatedBy: ">").dropFirst().first?.prefix { $0 != "<" } ?? ""
      #expect(text.hasPrefix(clock + ","), "\(text) should start with \(clock) in \(zone)")
      #expect(!text.contains("UTC"))
    }
    #expect(dom.contains("<span class=\"zone\">UTC+05:30</span>"))
    let row = dom.components(separatedBy: "data-device=\"clock-ahead\"").dropFirst().first ?? ""
    #expect(row.contains("ahead of the hub's clock") && !row.prefix(3_000).contains("just now"))
  }

  @Test("the fleet page updates itself: a window stored after it loaded appears without a reload")
  func fleetRefreshes() async throws {
    guard let chromium = KioskBrowserTests.chromium else {
      print("SKIPPED fleet refresh test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("pages-refresh")
    defer { directory.remove() }
    let (hub, reader) = try await PageScenes.fleet(directory, options: HubOptions(kioskRefresh: 0.3))
    defer { Task { await hub.stop() } }
    let device = PageScenes.names[.relaxed]!
    hub.closeGate(for: "/devices?part=live")
    defer { hub.openGate() }
    async let browser = offload {
      try runProgram(chromium, [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.file("profile"))",
        "--virtual-time-budget=5000", "--dump-dom", "\(hub.baseURL)/devices?key=\(reader)",
      ])
    }
    var waited = 0
    while !hub.requestLog.contains(where: { $0.path == "/devices" && $0.query.hasPrefix("part=live") }), waited < 400 {
      try await Task.sleep(for: .milliseconds(25))
      waited += 1
    }
    let stored = Date()
    let now = stored.timeIntervalSince1970
    let row = try kioskRecord(.high, device: device, now: now, age: 5)
    _ = try await hub.storage.upsert(deviceId: device, records: [row], receivedAt: now, outboxPending: 0)
    hub.openGate()
    let dom = try await browser.output
    #expect(hub.requestLog.contains { $0.path == "/devices" && !$0.query.hasPrefix("part=live") && $0.at < stored })
    #expect(dom.contains("data-device=\"\(device)\" data-category=\"high\""), "DOM: \(dom.prefix(400))")
    #expect(dom.components(separatedBy: "<html").count == 2, "one document: the table was swapped in place")
  }

  @Test("the trend, the week and the zoomed day as pictures")
  func trendWeekAndDay() async throws {
    if Self.skipWithoutChromium("trend and week pictures") { return }
    let directory = try TemporaryDirectory("pages-week")
    defer { directory.remove() }
    let (hub, reader) = try await PageScenes.fleet(directory)
    defer { Task { await hub.stop() } }
    let now = Date().timeIntervalSince1970
    let device = "desk-week"
    let days = try await PageScenes.week(device: device, storage: hub.storage, now: now)
    let monday = days[0]
    // The kiosk's trend of the high device, alone on a page
    let buckets = KioskView.buckets(now: now, options: HubOptions())
    let high = PageScenes.names[.high]!
    let points = try await hub.storage.trends(deviceIds: [high], buckets: buckets)[high] ?? []
    let chart = TrendChart(buckets: buckets, points: points, grey: false, size: .kiosk, idPrefix: "t-").svg()
    let html = try directory.write(
      "trend.html", "<!DOCTYPE html><html><body style=\"margin:0;background:#fff\">"
        + "<div style=\"padding:12px\">\(chart)</div></body></html>")
    let trend = try await Self.shot("file://\(html)", (700, 330), "hub-trend.png", in: directory)
    let week = try await Self.shot(
      "\(hub.baseURL)/devices/\(device)/weeks/\(monday)?key=\(reader)", (1180, 560), "hub-week.png", in: directory)
    _ = try await Self.shot(
      "\(hub.baseURL)/devices/\(device)/weeks/\(monday)?key=\(reader)", Self.phone, "hub-week-phone.png", in: directory)
    _ = try await Self.shot(
      "\(hub.baseURL)/devices/\(device)/days/\(days[1])?key=\(reader)", (1140, 700), "hub-day.png", in: directory)
    guard let trend, let week else { return }
    #expect(points.count > 60)
    for category in StressCategory.allCases {
      let fill = category.pattern == .solid ? ReportStyle.bandInk(category) : ReportStyle.bandPaper(category)
      #expect(Self.count(trend, fill, tolerance: 9) > 300, "\(category) band")
    }
    #expect(Self.count(trend, ReportStyle.stressLine, tolerance: 30) > 300, "the level line")
    #expect(Self.count(trend, ReportStyle.hrvLine, tolerance: 30) > 150, "the HRV line")
    #expect(Set(points.compactMap(\.category)) == [.moderate, .high])
    // The week shows the categories its quarter-hours had, each in its band's fill
    let weekPoints = try await hub.storage.trends(
      deviceIds: [device], buckets: WeekView.buckets(days))[device] ?? []
    for category in Set(weekPoints.compactMap(\.category)) {
      let fill = category.pattern == .solid ? ReportStyle.bandInk(category) : ReportStyle.bandPaper(category)
      #expect(Self.count(week, fill, tolerance: 9) > 100, "\(category) in the week")
    }
    #expect(Set(weekPoints.compactMap(\.category)).count >= 3)
  }

  @Test("the SVG icons are the panel's shapes: Chromium's rendering matches IconRenderer's mask")
  func iconsMatchThePanel() async throws {
    if Self.skipWithoutChromium("icon shapes") { return }
    let directory = try TemporaryDirectory("pages-icons")
    defer { directory.remove() }
    let size = 200
    for icon in CategoryIcon.allCases {
      let html = try directory.write(
        "\(icon).html", "<!DOCTYPE html><html><body style=\"margin:0;background:#fff\">"
          + "<svg width=\"\(size)\" height=\"\(size)\" viewBox=\"0 0 100 100\" xmlns=\"http://www.w3.org/2000/svg\">"
          + "<path d=\"\(KioskIconSVG.path(icon))\" fill=\"#000\"/></svg></body></html>")
      let shot = try await Self.shot("file://\(html)", (size, size), "icon-\(icon).png", in: directory)
      guard let image = shot else { return }
      let mask = IconRenderer.shapeMask(icon, size: size)
      var agree = 0
      for y in 0..<size {
        for x in 0..<size where (image.pixel(x, y).r < 128) == mask[x, y] { agree += 1 }
      }
      #expect(Double(agree) / Double(size * size) > 0.99, "\(icon): \(agree) of \(size * size) pixels agree")
    }
    // The relaxed icon, outline, gap and stem included, against the panel's own leaf
    let leaf = KioskIconSVG.svg(for: .relaxed, ink: KioskContrast.black, paper: KioskContrast.white)
      .replacingOccurrences(of: "<svg class=\"icon\"", with: "<svg width=\"\(size)\" height=\"\(size)\"")
    let html = try directory.write(
      "leaf.html", "<!DOCTYPE html><html><body style=\"margin:0;background:#fff\">\(leaf)</body></html>")
    guard let image = try await Self.shot("file://\(html)", (size, size), "leaf.png", in: directory) else { return }
    let panel = IconRenderer.render(.leaf, pattern: .solid, size: size)
    var agree = 0
    for y in 0..<size {
      for x in 0..<size where (image.pixel(x, y).r < 128) == panel[x, y] { agree += 1 }
    }
    // The gap between outline and fill is one pattern pixel: 1 px on the panel, 4 px here (2 units of 100)
    #expect(Double(agree) / Double(size * size) > 0.95, "leaf: \(agree) of \(size * size) pixels agree")
  }
}
