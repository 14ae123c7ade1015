import DayReport
import Foundation
import SyncWire

/// What one day page shows: which day, which page of its rows, how it is framed.
struct DayPageView: Sendable {
  let device: String
  let day: LocalDay
  /// Rows of the whole day, the page number and the rows a page holds.
  let rows: Int
  let page: Int
  let pageRows: Int
  let wholeDay: Bool
  let now: Double
  let links: PageLinks

  var pages: Int { max(1, (rows + pageRows - 1) / pageRows) }

  func link(page: Int? = nil, wholeDay: Bool? = nil) -> String {
    var items: [(String, String)] = []
    if (wholeDay ?? self.wholeDay) { items.append(("zoom", "day")) }
    let page = page ?? self.page
    if page > 1 { items.append(("page", "\(page)")) }
    return links.day(device, day, items)
  }
}

/// One device's day: the summary printed once, as text, then the day report's picture without its own title and
/// summary, zoomed to the measured span (or the whole day), with the hours still to come left blank. A day with
/// more rows than a page holds is drawn a page at a time (each page zoomed to its own rows), so a flood of rows
/// costs a bounded page, not the whole day.
enum DayPage {
  static func document(_ view: DayPageView, records: [MeasurementRecord]) -> String {
    let device = view.device, day = view.day
    let id = HTML.escape(device)
    let report = DayReport(records: records, day: day, options: .init(zoom: !view.wholeDay, now: view.now, header: false))
    let previous = LocalDay.containing(epochSeconds: day.start - 1)
    let next = LocalDay.containing(epochSeconds: day.end)
    var svg = report.svg()
    if svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") { svg = String(svg[svg.index(after: end)...]) }
    let links = view.links
    var nav = "<a href=\"\(HTML.escape(links.fleet))\">← Fleet</a>"
      + "<a href=\"\(HTML.escape(links.day(device, previous)))\" rel=\"prev\">← \(previous)</a>"
    if next.start <= view.now { nav += "<a href=\"\(HTML.escape(links.day(device, next)))\" rel=\"next\">\(next) →</a>" }
    nav += "<a href=\"\(HTML.escape(links.week(device, day)))\">Week</a>"
    nav += view.wholeDay
      ? "<a href=\"\(HTML.escape(view.link(wholeDay: false)))\">Zoom to the measured span</a>"
      : "<a href=\"\(HTML.escape(view.link(wholeDay: true)))\">Whole day</a>"
    nav += "<a href=\"\(HTML.escape(links.svg(device, day)))\">SVG file</a>"
    let summary = report.summary.sentenceParts.map { "<li>\(HTML.escape($0))</li>" }.joined()
    return HTMLPage.head(title: "\(device) · \(day) · stressmon", style: FleetPage.style) + """

      <body data-now="\(PageTime.stamp(view.now))">
      <main>
      <nav>\(nav)</nav>
      <h1>\(id) · \(day.weekdayName) \(day)</h1>
      \(pageNote(view, report: report))<ul class="summary">\(summary)</ul>
      <figure id="day-report">\(svg)</figure>
      </main>
      </body>
      </html>
      """
  }

  /// When the day has more rows than a page: which rows this page draws, and links to the others.
  private static func pageNote(_ view: DayPageView, report: DayReport) -> String {
    guard view.pages > 1 else { return "" }
    let first = (view.page - 1) * view.pageRows + 1
    let last = min(view.rows, view.page * view.pageRows)
    var note = "<p class=\"meta pages\">This day holds \(FleetPage.count(view.rows, "row")): this page draws rows "
      + "\(first)-\(max(first, last))"
    if let from = report.summary.firstMeasurement, let to = report.summary.lastMeasurement {
      note += " (\(from)-\(to))"
    }
    note += ", and its figures are of those rows. Page"
    let around = Set([1, view.pages] + Array(max(1, view.page - 2)...min(view.pages, view.page + 2)))
    var previous = 0
    for page in around.sorted() {
      if page > previous + 1 { note += " …" }
      note += page == view.page
        ? " <strong aria-current=\"page\">\(page)</strong>"
        : " <a href=\"\(HTML.escape(view.link(page: page)))\">\(page)</a>"
      previous = page
    }
    return note + " of \(view.pages).</p>\n"
  }
}
