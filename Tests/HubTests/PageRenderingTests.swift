import DayReport
import Foundation
import HTTPTypes
@testable import Hub
import Raster
import StressModel
import SyncTestSupport
import SyncWire
import Testing

/// The pages as HTML, without a browser: times and ages, the kiosk's stale state and trend, the trend chart's
/// coding, the fleet row, the day page's summary, the week grid.
@Suite("Hub pages as HTML")
struct PageRenderingTests {
  let now = 1_767_300_000.0

  /// Trend points every slot of the kiosk's window ending at `now`, with `level(slot)` (nil: not scored).
  func trend(_ buckets: TrendBuckets, level: (Int) -> Double?) -> [TrendPoint] {
    (0..<buckets.count).map { slot in
      let value = level(slot)
      return TrendPoint(
        bucket: slot, windowEnd: buckets.from + (Double(slot) + 0.8) * buckets.step, stressLevel: value,
        hrvMs: value.map { 80 - $0 / 2 }, quality: value == nil ? .noContact : .good)
    }
  }

  @Test("an age ahead of the hub's clock says so; it is never 'just now'")
  func agesAhead() {
    #expect(PageTime.age(30) == "just now")
    #expect(PageTime.age(-1) == "<1 min ahead of the hub's clock")
    #expect(PageTime.age(-240) == "4 min ahead of the hub's clock")
    #expect(PageTime.age(3 * 3600 + 5) == "3 h ago")
    #expect(PageTime.age(3 * 86_400) == "3 days ago")
    // The script says the same words (it rewrites the ages in the browser)
    #expect(PageScript.source.contains("\" ahead of the hub's clock\""))
    #expect(PageScript.source.contains("\"just now\""))
  }

  @Test("times are written in UTC with their instant, for the script to write in the reader's zone")
  func localTimes() {
    let html = PageTime.time(1_764_590_700)
    #expect(html == "<time datetime=\"2025-12-01T12:05:00Z\" data-ts=\"1764590700\">12:05 UTC, 1 Dec 2025</time>")
    let span = "<span class=\"age\" data-ts=\"\(Int(now) - 600)\">(10 min ago)</span>"
    #expect(PageTime.ageSpan(of: now - 600, now: now) == span)
  }

  @Test("a stale kiosk turns grey, keeps its icon and pattern, and leads with the warning")
  func staleKiosk() throws {
    let options = HubOptions(staleAfter: 600)
    let record = try kioskRecord(.moderate, device: "d", now: now, age: 2 * 3600)
    let view = KioskView(deviceId: "d", record: record, now: now, options: options)
    let panel = KioskPage.panel(view)
    #expect(view.background == KioskPage.staleBackground)
    #expect(KioskContrast.ratio(view.foreground, view.background) >= 4.5)
    #expect(panel.contains("background-color:\(KioskPage.staleBackground.hexString)"))
    #expect(!panel.contains(StressCategory.moderate.colour.hexString), "no full-colour category once stale")
    #expect(panel.contains("data-icon=\"triangle\" data-pattern=\"dots\""))
    let warning = try #require(panel.range(of: "Stale data: nothing new for 2 h"))
    let icon = try #require(panel.range(of: "<svg class=\"icon\""))
    #expect(warning.lowerBound < icon.lowerBound, "the warning comes first")
    #expect(panel.contains("<h1>Last: Moderate</h1>"))
    let fresh = KioskPage.panel(KioskView(
      deviceId: "d", record: try kioskRecord(.moderate, device: "d", now: now, age: 60), now: now, options: options))
    #expect(fresh.contains("background-color:\(StressCategory.moderate.colour.hexString)"))
    #expect(!fresh.contains("Stale data"))
  }

  @Test("the kiosk page has no inline script, loads the page script and falls back to a meta refresh")
  func kioskScript() throws {
    let view = KioskView(deviceId: "d", record: try kioskRecord(.mild, device: "d", now: now, age: 60), now: now,
                         options: HubOptions())
    let html = KioskPage.document(view, panelURL: "/kiosk/d/panel?key=k")
    #expect(html.components(separatedBy: "<script").count == 2)
    #expect(html.contains("<script src=\"/assets/hub.js\" defer></script>"))
    #expect(html.contains("<noscript><meta http-equiv=\"refresh\" content=\"60\"></noscript>"))
    #expect(html.contains("data-refresh=\"/kiosk/d/panel?key=k\" data-refresh-ms=\"10000\""))
  }

  @Test("the trend draws each band with its category's pattern, breaks the line at gaps, and goes grey when stale")
  func trendChart() throws {
    let buckets = KioskView.buckets(now: now, options: HubOptions())
    #expect(buckets.count == 72 && buckets.end > now && buckets.end - now <= 300)
    // Levels rising through all four categories, slots 20-24 unscored, 40-44 missing
    let points = trend(buckets) { $0 >= 20 && $0 < 25 ? nil : Double($0) * 1.35 }.filter { !(40..<45).contains($0.bucket) }
    let chart = TrendChart(buckets: buckets, points: points, grey: false, size: .kiosk, idPrefix: "t-")
    let svg = chart.svg()
    for category in StressCategory.allCases {
      let tile = KioskIconSVG.patternElement(
        category.pattern, id: "t-band-\(category.rawValue)", ink: ReportStyle.bandInk(category).hexString,
        paper: ReportStyle.bandPaper(category).hexString, scale: 3)
      #expect(svg.contains(tile), "\(category) band carries its own pattern in its tints")
    }
    // Three runs of scored slots (0-19, 25-39, 45-71): three level lines and three HRV lines
    #expect(svg.components(separatedBy: "<polyline").count - 1 == 6)
    #expect(TrendChart.runs(points.sorted { $0.bucket < $1.bucket }).map(\.count) == [20, 15, 27])
    #expect(svg.contains("Stress over the last 6 hours: 95 at the last scored window (high, crosshatched band)"))
    let grey = TrendChart(buckets: buckets, points: points, grey: true, size: .sparkline, idPrefix: "g-").svg()
    for category in StressCategory.allCases {
      let ink = ReportStyle.bandInk(category), paper = ReportStyle.bandPaper(category)
      #expect(grey.contains("fill=\"\(ink.grey.hexString)\""))
      #expect(!grey.contains(ink.hexString) && !grey.contains(paper.hexString))
      // Grey of the same lightness: the pattern keeps its contrast
      #expect(abs(KioskContrast.ratio(ink.grey, paper.grey) - KioskContrast.ratio(ink, paper)) < 0.1)
    }
  }

  @Test("the day page prints the summary once and draws the picture zoomed to the measured span")
  func dayPage() throws {
    let rows = try MeasurementFixtures.records(device: "desk-ana", count: 60)
    let day = LocalDay.containing(epochSeconds: rows[0].windowEnd)
    let view = DayPageView(
      device: "desk-ana", day: day, rows: rows.count, page: 1, pageRows: 10_000, wholeDay: false, now: now,
      links: PageLinks(.header))
    let html = DayPage.document(view, records: rows)
    let report = DayReport(records: rows, day: day)
    for part in report.summary.sentenceParts {
      #expect(html.components(separatedBy: HTML.escape(part)).count - 1 == 1, "'\(part)' once")
    }
    let zoomed = DayReport(records: rows, day: day, options: .init(zoom: true, header: false))
    #expect(zoomed.geometry.time.end - zoomed.geometry.time.start <= 2 * 3600)
    #expect(zoomed.geometry.time.start <= rows[0].windowStart && zoomed.geometry.time.end >= rows.last!.windowEnd)
    #expect(html.contains("Whole day"))
  }

  @Test("past its capacity the render thread answers 503 busy instead of queueing pages without bound")
  func rendererCapacity() async throws {
    let renderer = PageRenderer(threads: 1, capacity: 1)
    let release = DispatchSemaphore(value: 0)
    let first = Task { try await renderer.run { release.wait(); return 1 } }
    var waited = 0
    while renderer.load < 1, waited < 500 {
      try await Task.sleep(for: .milliseconds(10))
      waited += 1
    }
    do {
      _ = try await renderer.run { 2 }
      Issue.record("a second page was queued past the capacity")
    } catch let error as HubError {
      #expect(error.status == .serviceUnavailable && error.body.error == "busy")
      #expect(error.headers[.retryAfter] == "2")
    }
    release.signal()
    #expect(try await first.value == 1)
    #expect(try await renderer.run { 3 } == 3 && renderer.load == 0)
  }

  @Test("the week grid draws each quarter-hour in its category, no data hatched, the future left blank")
  func weekGrid() throws {
    let day = LocalDay.containing(epochSeconds: now)
    let days = WeekView.days(containing: day)
    #expect(days.count == 7 && days[0].weekdayName == "Monday" && days[6].weekdayName == "Sunday")
    #expect(days.contains(day))
    let buckets = WeekView.buckets(days)
    // Today 08:00-09:00 relaxed, 09:00-09:30 high, 09:30-09:45 not scored
    let eight = day.instant(hour: 8)
    var points: [TrendPoint] = []
    for (offset, level) in [(0, 10.0), (1, 10), (2, 10), (3, 10), (4, 90), (5, 90), (6, -1)] {
      let end = eight + Double(offset) * 900 + 600
      points.append(TrendPoint(
        bucket: buckets.bucket(of: end)!, windowEnd: end, stressLevel: level < 0 ? nil : level, hrvMs: 40,
        quality: level < 0 ? .poorSignal : .good))
    }
    let noon = day.instant(hour: 12)
    let view = WeekView(device: "d", days: days, buckets: buckets, points: points, now: noon, links: PageLinks(.header))
    let svg = WeekPage.svg(view)
    func count(_ kind: String) -> Int { svg.components(separatedBy: "data-kind=\"\(kind)\"").count - 1 }
    #expect(count("relaxed") == 1 && count("high") == 1 && count("unscored") == 1)
    // Each earlier day is one run of "no data"; today has two (before 08:00, 09:45-12:00); later days are blank
    let earlier = days.filter { $0.end <= noon }.count
    #expect(count("nodata") == earlier + 2)
    #expect(svg.components(separatedBy: "data-kind=").count - 1 == earlier + 5)
    #expect(WeekPage.description(view)
      == "Week of \(days[0]), by quarter-hour: Relaxed 1 h 00 min, High 30 min, Not scored 15 min.")
  }
}
