import DayReport
import Foundation
import Platform
import Raster
import StressModel
import SyncWire

/// What one fleet page shows.
struct FleetView: Sendable {
  let page: DevicePage
  let trends: [String: [TrendPoint]]
  let buckets: TrendBuckets
  let query: PageQuery
  let now: Double
  let options: HubOptions
  let links: PageLinks

  func isQuiet(_ device: DeviceSummary) -> Bool {
    guard let latest = device.latest else { return true }
    return now - latest.windowEnd > options.staleAfter
  }

  /// The page's own address with other query items (the key goes on).
  func link(order: DeviceOrder? = nil, descending: Bool? = nil, page: Int? = nil, live: Bool = false) -> String {
    var items: [(String, String)] = []
    if live { items.append(("part", "live")) }
    let order = order ?? query.order
    if order != .device { items.append(("sort", order.rawValue)) }
    if descending ?? query.descending { items.append(("dir", "desc")) }
    let page = page ?? query.page
    if page > 1 { items.append(("page", "\(page)")) }
    if query.limit != options.fleetPageSize { items.append(("limit", "\(query.limit)")) }
    return links.path("/devices", items)
  }
}

/// The fleet page: a page of devices, one row each, with the current category drawn as on the kiosk (icon filled
/// with the category's pattern, on its colour, labelled; grey with the same icon and pattern once the device went
/// quiet), stress level, HRV, the last hours as a sparkline, last window and upload in the reader's time zone with
/// their age, the rows pending and quarantined on the device, and whether it went quiet. Sortable, paged, and it
/// updates itself (`PageScript` fetches `?part=live`).
enum FleetPage {
  static func document(_ view: FleetView) -> String {
    let refreshMs = max(200, Int(view.options.kioskRefresh * 1000))
    return HTMLPage.head(title: title(view), style: style, refreshSeconds: max(30, Int(view.options.kioskRefresh * 6)))
      + """

      <body data-now="\(PageTime.stamp(view.now))">
      <p id="offline" class="warning offline hidden" role="alert">The hub does not answer: the page shows the last \
      data it had.</p>
      <main>
      <h1>Fleet</h1>
      <div id="live" data-refresh="\(HTML.escape(view.link(live: true)))" data-refresh-ms="\(refreshMs)">\
      \(live(view))</div>
      </main>
      </body>
      </html>
      """
  }

  /// The part that updates itself: totals, sorting, paging and the table.
  static func live(_ view: FleetView) -> String {
    let page = view.page
    var rows = ""
    for (index, device) in page.devices.enumerated() { rows += row(device, index: index, view: view) }
    if page.devices.isEmpty {
      rows = page.total == 0
        ? "<tr><td colspan=\"9\">No devices yet: create one with 'stressmon-hub token create --device ID'.</td></tr>"
        : "<tr><td colspan=\"9\">No devices on this page: "
          + "<a href=\"\(HTML.escape(view.link(page: 1)))\">first page</a>.</td></tr>"
    }
    let first = page.devices.isEmpty ? 0 : view.query.offset + 1
    let last = view.query.offset + page.devices.count
    var pager = "Devices \(first)-\(last) of \(count(page.total, "device"))"
    if view.query.page > 1 {
      pager += " · <a rel=\"prev\" href=\"\(HTML.escape(view.link(page: view.query.page - 1)))\">← Previous</a>"
    }
    if last < page.total {
      pager += " · <a rel=\"next\" href=\"\(HTML.escape(view.link(page: view.query.page + 1)))\">Next →</a>"
    }
    let hours = Int(view.options.trendHours.rounded())
    return """
      <div class="fleet" data-now="\(PageTime.stamp(view.now))" data-title="\(HTML.escape(title(view)))">\
      <p class="meta">\(count(page.total, "device")), \(page.quiet) quiet (no window for \
      \(PageTime.duration(view.options.staleAfter))) · on the devices: \(count(page.pendingRows, "row")) pending, \
      \(page.quarantinedRows) quarantined · times in your zone (\(PageTime.zoneSpan))</p>
      <nav class="sort" aria-label="Sort by">Sort by: \(sortLinks(view))</nav>
      <nav class="pages" aria-label="Pages">\(pager)</nav>
      <table>
      <thead><tr><th scope="col">Device</th><th scope="col">Category</th><th scope="col">Stress</th>\
      <th scope="col">HRV</th><th scope="col">Last \(hours) h</th><th scope="col">Last window</th>\
      <th scope="col">Last upload</th><th scope="col">On the device</th><th scope="col">State</th></tr></thead>
      <tbody>
      \(rows)
      </tbody>
      </table></div>
      """
  }

  static func title(_ view: FleetView) -> String {
    "Fleet · \(count(view.page.total, "device")), \(view.page.quiet) quiet · stressmon"
  }

  /// "1 device", "3 devices", "100 000 rows": a count a person reads.
  static func count(_ value: Int, _ noun: String) -> String {
    let digits = String(value)
    var grouped = ""
    for (index, character) in digits.reversed().enumerated() {
      if index > 0 && index % 3 == 0 && character != "-" { grouped.append("\u{2009}") }
      grouped.append(character)
    }
    return String(grouped.reversed()) + " " + inflected(noun, for: value)
  }

  // MARK: - Private

  private static let orderNames: [(DeviceOrder, String)] = [
    (.device, "device"), (.stress, "stress, highest first"), (.hrv, "HRV, lowest first"),
    (.quiet, "quiet, longest first"), (.backlog, "rows on the device, most first"),
  ]

  private static func sortLinks(_ view: FleetView) -> String {
    orderNames.map { order, name in
      if order == view.query.order {
        let flip = HTML.escape(view.link(order: order, descending: !view.query.descending, page: 1))
        return "<strong aria-current=\"true\">\(name)\(view.query.descending ? " (reversed)" : "")</strong> "
          + "<a href=\"\(flip)\" title=\"reverse the order\">⇅</a>"
      }
      return "<a href=\"\(HTML.escape(view.link(order: order, descending: false, page: 1)))\">\(name)</a>"
    }.joined(separator: " · ")
  }

  private static func row(_ device: DeviceSummary, index: Int, view: FleetView) -> String {
    let id = HTML.escape(device.deviceId)
    let quiet = view.isQuiet(device)
    let now = view.now
    let day = LocalDay.containing(epochSeconds: min(now, device.latest?.windowEnd ?? now))
    var cells = "<th scope=\"row\"><a href=\"\(HTML.escape(view.links.day(device.deviceId, day)))\">\(id)</a>"
      + " <a class=\"week\" href=\"\(HTML.escape(view.links.week(device.deviceId, day)))\">week</a></th>"
    let categoryName: String
    if let record = device.latest, let category = record.category {
      // A quiet device keeps its icon and pattern, on grey: its colour would claim the state is current.
      let background = quiet ? KioskPage.staleBackground : category.colour
      let ink = KioskContrast.textColour(on: background)
      cells += "<td class=\"category\" data-label=\"Category\" "
        + "style=\"background-color:\(background.hexString);color:\(ink.hexString)\">"
        + KioskIconSVG.svg(
          for: category, ink: ink, paper: background, idPrefix: "d\(index)-",
          label: category.accessibilityText + (quiet ? " Stale." : ""))
        + "<span>\(category.displayName)\(quiet ? " <small>(stale)</small>" : "")</span></td>"
      categoryName = category.rawValue
    } else if let record = device.latest {
      cells += "<td class=\"category\" data-label=\"Category\">"
        + "Uncategorised: \(HTML.escape(record.quality.displayText))</td>"
      categoryName = "uncategorised"
    } else {
      cells += "<td class=\"category\" data-label=\"Category\">No data yet</td>"
      categoryName = "none"
    }
    let scored = device.latest?.category != nil
    let level = scored ? device.latest?.stressLevel.map { "\(StressLevel.text($0)) / 100" } : nil
    let hrv = scored ? device.latest?.sdnnMs.map { "\($0.formatted(decimals: 0)) ms" } : nil
    cells += "<td class=\"number\" data-label=\"Stress\">\(level ?? "–")</td>"
    cells += "<td class=\"number\" data-label=\"HRV\">\(hrv ?? "–")</td>"
    if device.latest != nil {
      let chart = TrendChart(
        buckets: view.buckets, points: view.trends[device.deviceId] ?? [], grey: quiet, size: .sparkline,
        idPrefix: "d\(index)-")
      cells += "<td class=\"trend\" data-label=\"Last \(Int(view.options.trendHours.rounded())) h\">\(chart.svg())</td>"
    } else {
      cells += "<td class=\"trend\" data-label=\"Trend\">–</td>"
    }
    cells += "<td data-label=\"Last window\">\(device.latest.map { moment($0.windowEnd, now: now) } ?? "never")</td>"
    cells += "<td data-label=\"Last upload\">\(device.lastUploadAt.map { moment($0, now: now) } ?? "never")</td>"
    let pending = device.outboxPending.map { count($0, "row") + " pending" } ?? "pending unknown"
    let quarantined = device.outboxQuarantined.map { "\($0) quarantined" } ?? "quarantine unknown"
    let backlogClass = (device.outboxQuarantined ?? 0) > 0 ? " class=\"attention\"" : ""
    cells += "<td\(backlogClass) data-label=\"On the device\">\(pending) · \(quarantined)</td>"
    if quiet {
      let since = device.latest.map { "Quiet for \(PageTime.duration(now - $0.windowEnd))" } ?? "Silent: no data yet"
      cells += "<td class=\"quiet\" data-label=\"State\"><span role=\"img\" aria-label=\"warning\">⚠</span> \(since)</td>"
    } else {
      cells += "<td class=\"ok\" data-label=\"State\">Reporting</td>"
    }
    return "<tr data-device=\"\(id)\" data-category=\"\(categoryName)\" data-quiet=\"\(quiet)\">\(cells)</tr>\n"
  }

  private static func moment(_ epoch: Double, now: Double) -> String {
    "\(PageTime.time(epoch)) \(PageTime.ageSpan(of: epoch, now: now))"
  }

  static let style = """
    body { margin: 0; font-family: system-ui, "DejaVu Sans", sans-serif; background: #FFFFFF; color: #111111; }
    main { padding: 20px 28px; }
    h1 { font-size: 28px; margin: 0 0 4px; }
    .meta { color: #333333; margin: 0 0 8px; }
    nav { margin: 6px 0; }
    nav a { margin-right: 14px; }
    table { border-collapse: collapse; width: 100%; font-size: 16px; }
    th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid #BBBBBB; vertical-align: middle; }
    thead th { border-bottom: 2px solid #111111; }
    td.category, .nowrap { font-weight: 600; white-space: nowrap; }
    td.number, th[scope=row] { white-space: nowrap; }
    td.category svg.icon { width: 40px; height: 40px; vertical-align: middle; margin-right: 10px; }
    td.trend svg { width: 150px; height: 57px; display: block; }
    a.week { font-size: 13px; font-weight: 400; }
    .age { color: inherit; opacity: 0.8; white-space: nowrap; }
    td.quiet { font-weight: 700; background: #FFFFFF; color: #000000; outline: 3px solid #000000; outline-offset: -3px; }
    td.attention { font-weight: 700; }
    a { color: #0040A0; }
    .warning { font-weight: 700; background: #FFFFFF; color: #000000; border: 3px solid #000000; padding: 8px 16px; }
    .hidden { display: none; }
    #offline { position: fixed; top: 0; left: 0; right: 0; margin: 0; z-index: 2; }
    figure { margin: 12px 0; }
    figure svg { max-width: 100%; height: auto; }
    ul.summary { padding-left: 20px; margin: 8px 0; columns: 2 20em; }
    @media (max-width: 760px) {
      main { padding: 12px; }
      table, thead, tbody, tr, th, td { display: block; }
      thead { display: none; }
      tr { border: 2px solid #111111; border-radius: 8px; margin: 0 0 12px; overflow: hidden; }
      th[scope=row] { font-size: 20px; border-bottom: 1px solid #BBBBBB; }
      td { border-bottom: 1px solid #E5E5EA; }
      td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; }
      td.category[data-label]::before, td.trend[data-label]::before { content: ""; }
      td.trend svg { width: 100%; height: auto; }
      td.quiet { outline-width: 2px; }
    }
    """
}
