import DayReport
import Foundation
import Raster
import StressModel

/// What the week page shows: seven local days (Monday to Sunday) of one device, one point per quarter-hour.
struct WeekView: Sendable {
  let device: String
  let days: [LocalDay]
  let buckets: TrendBuckets
  let points: [TrendPoint]
  let now: Double
  let links: PageLinks

  /// A quarter of an hour: each cell of the week shows the newest window of its quarter-hour.
  static let slotSeconds = 900.0
  static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

  /// Monday to Sunday of the week holding `day` (noon steps, so a daylight-saving change cannot skip a day).
  static func days(containing day: LocalDay) -> [LocalDay] {
    let fromMonday = weekdays.firstIndex(of: day.weekdayName) ?? 0
    let monday = LocalDay.containing(epochSeconds: day.start + 43_200 - Double(fromMonday) * 86_400)
    return (0..<7).map { LocalDay.containing(epochSeconds: monday.start + 43_200 + Double($0) * 86_400) }
  }

  /// Quarter-hours from Monday's midnight to the next Monday's (local midnights are whole quarter-hours apart).
  static func buckets(_ days: [LocalDay]) -> TrendBuckets {
    let start = days.first?.start ?? 0, end = days.last?.end ?? 0
    return TrendBuckets(from: start, step: slotSeconds, count: Int(((end - start) / slotSeconds).rounded()))
  }
}

/// A week at a glance: a row per day, a column per quarter-hour, each cell in the category of the newest window of
/// its quarter-hour, drawn with the day report's coding (the category's own fill pattern in tints of its colour;
/// not scored densely hatched, no data sparsely hatched, the time still to come left blank). Each day links to its
/// day page.
enum WeekPage {
  /// The grid for a wide screen, and a narrow one for a phone (the page shows one of them by CSS): its text and
  /// its pattern pixels stay readable at 360 px.
  struct Layout {
    var labelWidth: Double
    var plotWidth: Double
    var rowHeight: Double
    var totalWidth: Double
    var font: Double
    var hourStep: Int
    var idPrefix: String

    static let wide = Layout(
      labelWidth: 120, plotWidth: 864, rowHeight: 40, totalWidth: 120, font: 15, hourStep: 3, idPrefix: "week-")
    static let narrow = Layout(
      labelWidth: 58, plotWidth: 288, rowHeight: 34, totalWidth: 0, font: 12, hourStep: 6, idPrefix: "weekn-")
  }

  static let rowGap = 8.0
  static let top = 26.0

  static func document(_ view: WeekView) -> String {
    let device = HTML.escape(view.device)
    let first = view.days.first!, last = view.days.last!
    let previous = LocalDay.containing(epochSeconds: first.start - 43_200)
    let next = LocalDay.containing(epochSeconds: last.end + 43_200)
    let links = view.links
    var nav = "<a href=\"\(HTML.escape(links.fleet))\">← Fleet</a>"
      + "<a href=\"\(HTML.escape(links.week(view.device, previous)))\" rel=\"prev\">"
      + "← Week of \(WeekView.days(containing: previous)[0])</a>"
    if next.start <= view.now {
      nav += "<a href=\"\(HTML.escape(links.week(view.device, next)))\" rel=\"next\">Week of \(next) →</a>"
    }
    let style = FleetPage.style + """

      figure.narrow { display: none; }
      @media (max-width: 760px) { figure.wide { display: none; } figure.narrow { display: block; } }
      """
    return HTMLPage.head(title: "\(view.device) · week of \(first) · stressmon", style: style) + """

      <body data-now="\(PageTime.stamp(view.now))">
      <main>
      <nav>\(nav)</nav>
      <h1>\(device) · week of \(first.weekdayName) \(first)</h1>
      <p class="meta">Each cell is a quarter of an hour, in the category of its last window; the hub's time zone \
      (\(HTML.escape(LocalDay.zoneText(epochSeconds: first.start)))). Days link to their day view.</p>
      <figure id="week" class="wide">\(svg(view))</figure>
      <figure id="week-narrow" class="narrow">\(svg(view, layout: .narrow))</figure>
      </main>
      </body>
      </html>
      """
  }

  static func svg(_ view: WeekView, layout: Layout = .wide) -> String {
    let (labelWidth, plotWidth, rowHeight, totalWidth) =
      (layout.labelWidth, layout.plotWidth, layout.rowHeight, layout.totalWidth)
    let prefix = layout.idPrefix
    let height = top + Double(view.days.count) * (rowHeight + rowGap) + 30
    var defs = ""
    for category in StressCategory.allCases {
      defs += KioskIconSVG.patternElement(
        category.pattern, id: "\(prefix)\(category.rawValue)", ink: ReportStyle.bandInk(category).hexString,
        paper: ReportStyle.bandPaper(category).hexString, scale: 2)
    }
    defs += hatch(id: "\(prefix)unscored", spacing: 4, ink: "#8E8E93", paper: "#F2F2F7")
    defs += hatch(id: "\(prefix)nodata", spacing: 8, ink: "#C7C7CC", paper: "#FFFFFF")
    let face = "font-family=\"system-ui, DejaVu Sans, sans-serif\" font-size=\"\(n(layout.font))\""
    let font = face + " fill=\"#1C1C1E\""
    var body = ""
    let byBucket = Dictionary(view.points.map { ($0.bucket, $0) }, uniquingKeysWith: { a, _ in a })
    for (row, day) in view.days.enumerated() {
      let y = top + Double(row) * (rowHeight + rowGap)
      func x(_ time: Double) -> Double { labelWidth + (time - day.start) / day.duration * plotWidth }
      let label = layout.totalWidth > 0
        ? "\(String(day.weekdayName.prefix(3))) \(day.day) \(Self.month(day.month))"
        : "\(String(day.weekdayName.prefix(3))) \(day.day)"
      body += "<a href=\"\(HTML.escape(view.links.day(view.device, day)))\">"
        + "<text x=\"0\" y=\"\(n(y + rowHeight / 2 + 5))\" "
        + "\(face) fill=\"#0040A0\" text-decoration=\"underline\">\(label)</text></a>"
      // Runs of quarter-hours of one kind, drawn as one rect each.
      var runs: [(kind: String, start: Double, end: Double)] = []
      var measured = 0
      var slotStart = day.start
      while slotStart < day.end - 1 {
        let slotEnd = min(day.end, slotStart + WeekView.slotSeconds)
        let kind: String
        if let bucket = view.buckets.bucket(of: slotStart + 1), let point = byBucket[bucket] {
          kind = point.category.map { "\(prefix)\($0.rawValue)" } ?? "\(prefix)unscored"
          measured += 1
        } else {
          kind = slotStart >= view.now ? "" : slotEnd > view.now ? "now" : "\(prefix)nodata"
        }
        if let lastRun = runs.last, lastRun.kind == kind {
          runs[runs.count - 1].end = slotEnd
        } else {
          runs.append((kind, slotStart, slotEnd))
        }
        slotStart = slotEnd
      }
      for run in runs where !run.kind.isEmpty && run.kind != "now" {
        let left = x(run.start)
        body += "<rect x=\"\(n(left))\" y=\"\(n(y))\" width=\"\(n(x(run.end) - left))\" height=\"\(n(rowHeight))\" "
          + "fill=\"url(#\(run.kind))\" data-kind=\"\(run.kind.dropFirst(prefix.count))\"/>"
      }
      body += "<rect x=\"\(n(labelWidth))\" y=\"\(n(y))\" width=\"\(n(plotWidth))\" height=\"\(n(rowHeight))\" "
        + "fill=\"none\" stroke=\"#8E8E93\" stroke-width=\"1\"/>"
      if view.now > day.start && view.now < day.end {
        body += "<rect x=\"\(n(x(view.now) - 1))\" y=\"\(n(y - 3))\" width=\"2\" height=\"\(n(rowHeight + 6))\" "
          + "fill=\"#1C1C1E\"/>"
      }
      if totalWidth > 0 {
        let total = DaySummary.duration(minutes: Double(measured) * WeekView.slotSeconds / 60)
        body += "<text x=\"\(n(labelWidth + plotWidth + 10))\" y=\"\(n(y + rowHeight / 2 + 5))\" \(font)>"
          + "\(measured == 0 ? "–" : total)</text>"
      }
    }
    let axisY = top + Double(view.days.count) * (rowHeight + rowGap) + 12
    for hour in stride(from: 0, through: 24, by: layout.hourStep) {
      let x = labelWidth + Double(hour) / 24 * plotWidth
      body += "<text x=\"\(n(x))\" y=\"\(n(axisY))\" \(font) text-anchor=\"middle\">"
        + "\(hour < 10 ? "0" : "")\(hour):00</text>"
    }
    body += "<text x=\"\(n(labelWidth))\" y=\"16\" \(font) font-weight=\"600\">Stress by quarter-hour</text>"
    if totalWidth > 0 {
      body += "<text x=\"\(n(labelWidth + plotWidth + 10))\" y=\"16\" \(font) font-weight=\"600\">With data</text>"
    }
    let width = labelWidth + plotWidth + max(totalWidth, 24)
    return "<svg class=\"week\" role=\"img\" aria-labelledby=\"\(prefix)title\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
      + "xmlns=\"http://www.w3.org/2000/svg\"><title id=\"\(prefix)title\">\(HTML.escape(description(view)))</title>"
      + "<defs>\(defs)</defs>\(body)</svg>"
  }

  /// The week in words: quarter-hours per category, for a screen reader.
  static func description(_ view: WeekView) -> String {
    var counts: [String: Int] = [:]
    for point in view.points { counts[point.category?.displayName ?? "Not scored", default: 0] += 1 }
    let parts = (StressCategory.allCases.map(\.displayName) + ["Not scored"]).compactMap { name in
      counts[name].map { "\(name) \(DaySummary.duration(minutes: Double($0) * 15))" }
    }
    let first = view.days.first.map { "\($0)" } ?? ""
    return "Week of \(first), by quarter-hour: " + (parts.isEmpty ? "no data." : parts.joined(separator: ", ") + ".")
  }

  /// Lines falling to the right every `spacing` units, as the day report hatches time without a score.
  private static func hatch(id: String, spacing: Int, ink: String, paper: String) -> String {
    "<pattern id=\"\(id)\" width=\"\(spacing)\" height=\"\(spacing)\" patternUnits=\"userSpaceOnUse\">"
      + "<rect width=\"\(spacing)\" height=\"\(spacing)\" fill=\"\(paper)\"/>"
      + "<path d=\"M0 0 L\(spacing) \(spacing)\" stroke=\"\(ink)\" stroke-width=\"1\"/></pattern>"
  }

  private static func month(_ month: Int) -> String {
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][max(0, min(11, month - 1))]
  }

  private static func n(_ value: Double) -> String { KioskIconSVG.number(value) }
}
