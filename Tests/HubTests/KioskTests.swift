import Foundation
import Hub
import StressModel
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// A row of `category` that ended `age` seconds before `now`, from the real-recording fixtures.
func kioskRecord(_ category: StressCategory, device: String, now: Double, age: Double) throws -> MeasurementRecord {
  kioskRecord(try MeasurementFixtures.records(device: device, count: 1)[0], category, now: now, age: age)
}

/// `base` recategorised and moved to end `age` seconds before `now`.
func kioskRecord(_ base: MeasurementRecord, _ category: StressCategory, now: Double, age: Double) -> MeasurementRecord {
  var row = base
  let range = category.levelRange
  row.stressLevel = (range.lower + range.upper) / 2
  row.category = category
  row.quality = .good
  row.windowEnd = now - age
  row.windowStart = row.windowEnd - 60
  row.modifiedAt = row.windowEnd
  return row
}

@Suite("Kiosk page")
struct KioskPageTests {
  let now = 1_767_300_000.0

  @Test("text on every background meets WCAG 2.1 AA (4.5:1)", arguments: StressCategory.allCases)
  func contrastPerCategory(_ category: StressCategory) {
    let text = KioskContrast.textColour(on: category.colour)
    #expect(KioskContrast.ratio(text, category.colour) >= KioskContrast.minimumTextRatio)
  }

  @Test("the neutral page and the warning box meet AA too; the ratio formula matches WCAG's anchors")
  func contrastNeutralAndFormula() {
    let neutral = KioskPage.neutralBackground
    #expect(KioskContrast.ratio(KioskContrast.textColour(on: neutral), neutral) >= 4.5)
    #expect(abs(KioskContrast.ratio(KioskContrast.black, KioskContrast.white) - 21) < 1e-9)
    #expect(abs(KioskContrast.ratio(RGBColour(hex: 0x777777), KioskContrast.white) - 4.48) < 0.01)
  }

  @Test("the SVG fill pattern tile reproduces FillPattern.isInk", arguments: FillPattern.allCases)
  func patternTileMatchesIsInk(_ pattern: FillPattern) throws {
    // Given the generated <pattern>, When its rects are rasterised back to pattern pixels
    let element = KioskIconSVG.patternElement(pattern, id: "p", ink: "#000000")
    let scale = KioskIconSVG.unitsPerPixel
    let period = KioskIconSVG.period(of: pattern)
    var ink = Set<[Int]>()
    let rects: [[Int]] = element.split(separator: "<rect").dropFirst().map { rect in
      rect.split(separator: "\"").compactMap { Int(String($0)) }
    }
    for values in rects {
      let (left, top, width) = (values[0] / scale, values[1] / scale, values[2] / scale)
      for dx in 0..<width { ink.insert([left + dx, top]) }
    }
    // Then tiling them gives isInk everywhere, including negative coordinates
    for y in -12..<24 {
      for x in -12..<24 {
        let tile = [((x % period) + period) % period, ((y % period) + period) % period]
        #expect(ink.contains(tile) == pattern.isInk(x: x, y: y), "pixel \(x),\(y)")
      }
    }
  }

  @Test("the image is labelled with the category's accessibility text and drawn from its icon and pattern")
  func imageLabel() throws {
    for category in StressCategory.allCases {
      let view = KioskView(deviceId: "desk-1", record: try kioskRecord(category, device: "desk-1", now: now, age: 30), now: now, options: HubOptions())
      let html = KioskPage.document(view, panelURL: "/kiosk/d/panel")
      #expect(html.contains("role=\"img\" aria-labelledby=\"category-image-title\""))
      #expect(html.contains("<title id=\"category-image-title\">\(category.accessibilityText)</title>"))
      #expect(html.contains("data-icon=\"\(category.icon.rawValue)\" data-pattern=\"\(category.pattern.rawValue)\""))
      #expect(html.contains("background-color:\(category.colour.hexString)"))
      #expect(html.contains("<h1>\(category.displayName)</h1>"))
    }
  }

  @Test("motion happens only without a reduced-motion preference")
  func reducedMotion() throws {
    let view = KioskView(deviceId: "d", record: try kioskRecord(.high, device: "d", now: now, age: 3000), now: now, options: HubOptions())
    let html = KioskPage.document(view, panelURL: "/kiosk/d/panel")
    let media = "@media (prefers-reduced-motion: no-preference) {"
    let parts = html.components(separatedBy: media)
    #expect(parts.count == 2)
    #expect(!parts[0].contains("transition") && !parts[0].contains("animation"))
  }

  @Test("old data shows the stale warning, fresh data does not, no data says so")
  func staleness() throws {
    let options = HubOptions(staleAfter: 600)
    let fresh = KioskPage.panel(KioskView(deviceId: "d", record: try kioskRecord(.mild, device: "d", now: now, age: 120), now: now, options: options))
    let stale = KioskPage.panel(KioskView(deviceId: "d", record: try kioskRecord(.mild, device: "d", now: now, age: 3600), now: now, options: options))
    let none = KioskPage.panel(KioskView(deviceId: "d", record: nil, now: now, options: options))
    #expect(!fresh.contains("Stale data"))
    #expect(stale.contains("Stale data: nothing new for 60 min."))
    #expect(none.contains("No data yet") && none.contains("data-category=\"none\""))
  }
}

@Suite("Kiosk page in headless Chromium", .serialized)
struct KioskBrowserTests {
  static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

  @Test("the screenshot shows the category colour and the icon filled with its own pattern", arguments: StressCategory.allCases)
  func screenshot(_ category: StressCategory) async throws {
    guard let chromium = Self.chromium else {
      print("SKIPPED kiosk screenshot test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    let directory = try TemporaryDirectory("kiosk")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let now = Date().timeIntervalSince1970
    _ = try await storage.upsert(
      deviceId: "kiosk-1", records: [try kioskRecord(category, device: "kiosk-1", now: now, age: 20)], receivedAt: now,
      outboxPending: nil)
    let key = try await HubTokens.create(kind: .kiosk, deviceId: "kiosk-1", storage: storage, now: now).token
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let shot = try await Self.screenshot(
      chromium, "\(hub.baseURL)/kiosk/kiosk-1?key=\(key)", size: (600, 800), name: "kiosk.png", in: directory)
    await hub.stop()
    guard let image = shot else { return }
    #expect(image.width == 600 && image.height == 800)

    // The page background is the category colour
    let colour = category.colour
    let corner = image.pixel(5, 5)
    #expect(abs(corner.r - Int(colour.red)) <= 2 && abs(corner.g - Int(colour.green)) <= 2 && abs(corner.b - Int(colour.blue)) <= 2)

    // The icon (portrait: centred, above the text): the first rows with ink from the top; its height is 30vh.
    let ink = KioskContrast.textColour(on: colour)
    func isInk(_ x: Int, _ y: Int) -> Bool {
      let p = image.pixel(x, y)
      let toInk = abs(p.r - Int(ink.red)) + abs(p.g - Int(ink.green)) + abs(p.b - Int(ink.blue))
      let toBackground = abs(p.r - Int(colour.red)) + abs(p.g - Int(colour.green)) + abs(p.b - Int(colour.blue))
      return toInk < toBackground
    }
    guard let top = (0..<image.height).first(where: { y in (0..<image.width).contains { isInk($0, y) } }) else {
      Issue.record("no ink on the page")
      return
    }
    let iconSize = Int(0.30 * Double(image.height))
    // Sample inside the shape, clear of its outline: 62 % down the centre column, ±14 % wide; the leaf (a lens on
    // the rising diagonal) around the middle of its two tips, ±10 %.
    let left = image.width / 2 - iconSize / 2
    let leaf = category.icon == .leaf
    let centre = leaf
      ? ((IconGeometry.leafTipLow.x + IconGeometry.leafTipHigh.x) / 2,
         (IconGeometry.leafTipLow.y + IconGeometry.leafTipHigh.y) / 2)
      : (0.5, 0.62)
    // The first ink row is the shape's top, which lies this far below the icon box's top
    let shapeTop: Double
    switch category.icon {
    case .leaf: shapeTop = IconGeometry.leafTipHigh.y
    case .circle: shapeTop = 0.5 - IconGeometry.circleRadius
    case .square: shapeTop = 0.5 - IconGeometry.squareSide / 2
    case .triangle: shapeTop = IconGeometry.triangleTop
    }
    let boxTop = top - Int(shapeTop * Double(iconSize))
    let (cx, cy) = (left + Int(centre.0 * Double(iconSize)), boxTop + Int(centre.1 * Double(iconSize)))
    let half = iconSize * (leaf ? 10 : 14) / 100
    var inkPixels = 0, total = 0, emptyRows = 0
    for y in (cy - half)..<(cy + half) {
      var rowInk = 0
      for x in (cx - half)..<(cx + half) where isInk(x, y) { rowInk += 1 }
      inkPixels += rowInk
      total += 2 * half
      if rowInk == 0 { emptyRows += 1 }
    }
    let measuredInk = Double(inkPixels) / Double(total)
    let measuredEmptyRows = Double(emptyRows) / Double(2 * half)

    // Expectations from the pattern itself: its ink share and its share of ink-free rows per tile.
    let pattern = category.pattern
    let period = KioskIconSVG.period(of: pattern)
    let tile = (0..<period).flatMap { y in (0..<period).map { x in pattern.isInk(x: x, y: y) } }
    let expectedInk = Double(tile.filter { $0 }.count) / Double(tile.count)
    let expectedEmptyRows = Double((0..<period).filter { y in !(0..<period).contains { pattern.isInk(x: $0, y: y) } }.count) / Double(period)
    #expect(abs(measuredInk - expectedInk) < 0.08, "\(category): ink share \(measuredInk) vs pattern \(expectedInk)")
    #expect(abs(measuredEmptyRows - expectedEmptyRows) < 0.15, "\(category): empty rows \(measuredEmptyRows) vs \(expectedEmptyRows)")
  }

  static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    try runProgram(executable, arguments)
  }

  /// A screenshot of `url` at `size` CSS pixels (scale 1, sRGB), decoded; nil (with an issue recorded) when
  /// Chromium wrote none. With `STRESSMON_SCREENSHOTS=DIR` the PNG is kept there as `name`.
  static func screenshot(
    _ chromium: String, _ url: String, size: (Int, Int), name: String, in directory: TemporaryDirectory,
    extra: [String] = []
  ) async throws -> PNGImage? {
    let png = directory.file(name)
    let result = try await offload { try Self.run(chromium, [
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
      "--force-color-profile=srgb", "--window-size=\(size.0),\(size.1)",
      "--user-data-dir=\(directory.file("profile-\(name)"))", "--screenshot=\(png)",
    ] + extra + [url]) }
    guard let data = FileManager.default.contents(atPath: png) else {
      Issue.record("chromium wrote no screenshot (exit \(result.status)): \(result.output.suffix(500))")
      return nil
    }
    if let keep = ProcessInfo.processInfo.environment["STRESSMON_SCREENSHOTS"] {
      try data.write(to: URL(fileURLWithPath: keep + "/" + name))
    }
    return try PNGImage(bytes: Array(data))
  }

  @Test("the open page refreshes itself: data stored after it loaded appears without a reload")
  func refreshesItself() async throws {
    guard let chromium = Self.chromium else {
      print("SKIPPED kiosk refresh test: chromium not installed (scripts/setup --test installs it)")
      return
    }
    // The row comes from the shared recordings: read it before Chromium waits on the hub, so that without them the
    // test skips here instead of leaving Chromium blocked on the closed gate below.
    let base = try MeasurementFixtures.records(device: "kiosk-2", count: 1)[0]
    let directory = try TemporaryDirectory("kiosk-refresh")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let hub = LiveHub(storage: storage, options: HubOptions(kioskRefresh: 0.3))
    try await hub.start()
    let key = try await HubTokens.create(
      kind: .kiosk, deviceId: "kiosk-2", storage: storage, now: Date().timeIntervalSince1970).token
    // Given the page open on a device with no data yet: Chromium runs it for 5 s of virtual time (its timers
    // fire fast, network waits are real), then prints the live DOM. The page's first refresh is held at the hub;
    // whatever ends this test early opens the gate, or the blocked Chromium (and the test) would wait forever.
    let page = "/kiosk/kiosk-2"
    hub.closeGate(for: page + "/panel")
    defer { hub.openGate() }
    let profile = directory.file("profile")
    let url = "\(hub.baseURL)\(page)?key=\(key)"
    async let browser = offload {
      try Self.run(chromium, [
        "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--virtual-time-budget=5000",
        "--dump-dom", url,
      ])
    }
    // When a measurement arrives after the page has loaded and asked for fresh data
    var waited = 0
    while !hub.requestLog.contains(where: { $0.path == page + "/panel" }), waited < 400 {
      try await Task.sleep(for: .milliseconds(25))
      waited += 1
    }
    let stored = Date()
    let now = stored.timeIntervalSince1970
    _ = try await storage.upsert(
      deviceId: "kiosk-2", records: [kioskRecord(base, .high, now: now, age: 5)], receivedAt: now, outboxPending: nil)
    hub.openGate()
    let dom = try await browser.output
    await hub.stop()
    // Then the page fetched its panel again after that and shows it, drawn by the server
    let log = hub.requestLog
    #expect(log.contains { $0.path == page && $0.at < stored }, "the page must have loaded before the data arrived")
    #expect(dom.contains("data-category=\"high\""), "DOM: \(dom.prefix(600))")
    #expect(dom.contains(StressCategory.high.accessibilityText))
    #expect(!dom.contains("No data yet"))
  }
}
