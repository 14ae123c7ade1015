import DayReport
import Foundation
import Hub
import StressModel
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The fleet page and a day view as a browser draws them: Debian's headless Chromium against a hub on loopback.
/// With `STRESSMON_SCREENSHOTS=DIR` the screenshots are kept there (scripts/hub-screenshots makes the README's).
@Suite("Fleet pages in headless Chromium", .serialized)
struct FleetBrowserTests {
  /// A hub holding one device per category reporting now (six hours of real-recording rows), one quiet for three
  /// hours and one that never sent anything; and a reader token.
  static func fleet(_ directory: TemporaryDirectory) async throws -> (LiveHub, String) {
    try await PageScenes.fleet(directory)
  }

  static func screenshot(_ url: String, size: (Int, Int), name: String, in directory: TemporaryDirectory) async throws
    -> PNGImage?
  {
    guard let chromium = KioskBrowserTests.chromium else { return nil }
    return try await KioskBrowserTests.screenshot(chromium, url, size: size, name: name, in: directory)
  }

  @Test("the fleet page shows each category in its colour with its patterned icon, and flags the quiet device")
  func fleetPage() async throws {
    guard let chromium = KioskBrowserTests.chromium else {
      print("SKIPPED fleet page browser test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("fleet-browser")
    defer { directory.remove() }
    let (hub, reader) = try await Self.fleet(directory)
    let url = "\(hub.baseURL)/devices?key=\(reader)"
    let dom = try await offload {
      try KioskBrowserTests.run(chromium, [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.file("profile-dom"))", "--dump-dom", url,
      ]).output
    }
    let image = try await Self.screenshot(url, size: (1400, 900), name: "hub-fleet.png", in: directory)
    await hub.stop()
    // The browser built the table: six devices, the quiet one flagged, the silent one without data
    #expect(dom.components(separatedBy: "<tr data-device=").count - 1 == 6)
    #expect(dom.contains("data-device=\"wear-zero-1\" data-category=\"mild\" data-quiet=\"true\""))
    #expect(dom.contains("data-device=\"kiosk-hall\" data-category=\"none\" data-quiet=\"true\""))
    guard let image else { return }
    // Each category's cell is painted in its colour, and its icon is drawn in ink on it (the pattern shows)
    for category in StressCategory.allCases {
      let colour = category.colour
      let ink = KioskContrast.textColour(on: colour)
      var background = 0, inked = 0
      for y in 0..<image.height {
        for x in 0..<image.width {
          let p = image.pixel(x, y)
          if abs(p.r - Int(colour.red)) + abs(p.g - Int(colour.green)) + abs(p.b - Int(colour.blue)) < 8 { background += 1 }
        }
      }
      // Ink pixels inside the cell's bounding box: find the box from the background pixels' rows
      let rows = (0..<image.height).filter { y in (0..<image.width).contains { x in
        let p = image.pixel(x, y)
        return abs(p.r - Int(colour.red)) + abs(p.g - Int(colour.green)) + abs(p.b - Int(colour.blue)) < 8 } }
      if let top = rows.first, let bottom = rows.last {
        for y in top...bottom {
          for x in 0..<image.width {
            let p = image.pixel(x, y)
            if abs(p.r - Int(ink.red)) + abs(p.g - Int(ink.green)) + abs(p.b - Int(ink.blue)) < 60 { inked += 1 }
          }
        }
      }
      #expect(background > 1_500, "\(category): \(background) pixels of its colour")
      #expect(inked > 150, "\(category): \(inked) ink pixels in its row (icon and name)")
    }
  }

  @Test("the day view in the browser is the picture `stressmon report` draws from the same rows")
  func dayView() async throws {
    guard KioskBrowserTests.chromium != nil else {
      print("SKIPPED day view browser test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("day-browser")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let rows = try MeasurementFixtures.records(device: "desk-ana", count: 2000)
    _ = try await storage.upsert(deviceId: "desk-ana", records: rows, receivedAt: rows.last!.windowEnd, outboxPending: 0)
    let reader = try await HubTokens.create(kind: .reader, deviceId: "desk-ana", storage: storage, now: 0).token
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let day = LocalDay.containing(epochSeconds: rows[1000].windowEnd)
    let expected = DayReport(records: rows, day: day).raster()
    let picture = try await Self.screenshot(
      "\(hub.baseURL)/devices/desk-ana/days/\(day).svg?key=\(reader)", size: (expected.width, expected.height),
      name: "hub-day-svg.png", in: directory)
    _ = try await Self.screenshot(
      "\(hub.baseURL)/devices/desk-ana/days/\(day)?key=\(reader)", size: (expected.width + 64, expected.height + 150),
      name: "hub-day-page.png", in: directory)
    await hub.stop()
    guard let picture else { return }
    #expect(picture.width == expected.width && picture.height == expected.height)
    // Pixel by pixel against the report's own raster: shapes and fills agree; only glyphs differ (a browser
    // font against the bitmap font), which is a small share of the picture.
    var same = 0
    for y in 0..<min(picture.height, expected.height) {
      for x in 0..<min(picture.width, expected.width) {
        let p = picture.pixel(x, y)
        guard let q = expected[x, y] else { continue }
        if abs(p.r - Int(q.red)) <= 48 && abs(p.g - Int(q.green)) <= 48 && abs(p.b - Int(q.blue)) <= 48 { same += 1 }
      }
    }
    let share = Double(same) / Double(expected.width * expected.height)
    #expect(share > 0.93, "only \(share) of the pixels match the report's raster")
  }
}
