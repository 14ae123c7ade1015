import CommandSupport
import DayReport
import Foundation
import StressModel
import SyncWire

/// The fleet page: one row per device with its current category drawn as on the kiosk (icon filled with the
/// category's pattern, on its colour, labelled), stress level, last window, last upload, rows still waiting on
/// the device, and whether it went quiet (no window for longer than the stale limit).
enum FleetPage {
  static func document(_ devices: [DeviceSummary], now: Double, staleAfter: Double, links: PageLinks) -> String {
    let quiet = devices.filter { isQuiet($0, now: now, staleAfter: staleAfter) }.count
    var rows = ""
    for (index, device) in devices.enumerated() {
      rows += row(device, index: index, now: now, staleAfter: staleAfter, links: links)
    }
    if devices.isEmpty {
      rows = "<tr><td colspan=\"7\">No devices yet: create one with 'stressmon-hub token create --device ID'.</td></tr>"
    }
    return HTMLPage.head(title: "Fleet · stressmon", style: style) + """

      <body>
      <main>
      <h1>Fleet</h1>
      <p class="meta">\(counted(devices.count, "device")), \(quiet) quiet · quiet means no window for \
      \(KioskPage.ageText(staleAfter)) · times in UTC · hub clock \(KioskPage.timeText(now))</p>
      <table>
      <thead><tr><th scope="col">Device</th><th scope="col">Category</th><th scope="col">Stress</th>\
      <th scope="col">Last window</th><th scope="col">Last upload</th><th scope="col">Waiting on device</th>\
      <th scope="col">State</th></tr></thead>
      <tbody>
      \(rows)
      </tbody>
      </table>
      </main>
      </body>
      </html>
      """
  }

  static func isQuiet(_ device: DeviceSummary, now: Double, staleAfter: Double) -> Bool {
    guard let latest = device.latest else { return true }
    return now - latest.windowEnd > staleAfter
  }

  // MARK: - Private

  private static func row(_ device: DeviceSummary, index: Int, now: Double, staleAfter: Double, links: PageLinks) -> String {
    let id = HTML.escape(device.deviceId)
    let quiet = isQuiet(device, now: now, staleAfter: staleAfter)
    let dayLink = links.day(device.deviceId, LocalDay.containing(epochSeconds: device.latest?.windowEnd ?? now))
    var cells = "<th scope=\"row\"><a href=\"\(HTML.escape(dayLink))\">\(id)</a></th>"
    let categoryName: String
    if let record = device.latest, let category = record.category {
      let ink = KioskContrast.textColour(on: category.colour)
      cells += "<td class=\"category\" style=\"background-color:\(category.colour.hexString);color:\(ink.hexString)\">"
        + KioskIconSVG.svg(for: category, ink: ink, idPrefix: "d\(index)-") + "<span>\(category.displayName)</span></td>"
      cells += "<td class=\"number\">\(record.stressLevel.map { "\($0.formatted(decimals: 0)) / 100" } ?? "–")</td>"
      categoryName = category.rawValue
    } else if let record = device.latest {
      cells += "<td class=\"category\">Uncategorised: \(HTML.escape(record.quality.displayText))</td><td>–</td>"
      categoryName = "uncategorised"
    } else {
      cells += "<td class=\"category\">No data yet</td><td>–</td>"
      categoryName = "none"
    }
    if let record = device.latest {
      cells += "<td>\(KioskPage.timeText(record.windowEnd)) <span class=\"age\">(\(age(now - record.windowEnd)))</span></td>"
    } else {
      cells += "<td>never</td>"
    }
    if let upload = device.lastUploadAt {
      cells += "<td>\(KioskPage.timeText(upload)) <span class=\"age\">(\(age(now - upload)))</span></td>"
    } else {
      cells += "<td>never</td>"
    }
    cells += "<td>\(device.outboxPending.map { "\($0) rows" } ?? "unknown")</td>"
    if quiet {
      let since = device.latest.map { "Quiet for \(KioskPage.ageText(now - $0.windowEnd))" } ?? "Silent: no data yet"
      cells += "<td class=\"quiet\"><span role=\"img\" aria-label=\"warning\">⚠</span> \(since)</td>"
    } else {
      cells += "<td class=\"ok\">Reporting</td>"
    }
    return "<tr data-device=\"\(id)\" data-category=\"\(categoryName)\" data-quiet=\"\(quiet)\">\(cells)</tr>\n"
  }

  private static func age(_ seconds: Double) -> String {
    seconds < 60 ? "just now" : "\(KioskPage.ageText(seconds)) ago"
  }

  static let style = """
    body { margin: 0; font-family: system-ui, "DejaVu Sans", sans-serif; background: #FFFFFF; color: #111111; }
    main { padding: 24px 32px; }
    h1 { font-size: 28px; margin: 0 0 4px; }
    .meta { color: #333333; margin: 0 0 16px; }
    table { border-collapse: collapse; width: 100%; font-size: 16px; }
    th, td { text-align: left; padding: 8px 12px; border-bottom: 1px solid #BBBBBB; vertical-align: middle; }
    thead th { border-bottom: 2px solid #111111; }
    td.category, .nowrap { font-weight: 600; white-space: nowrap; }
    td.number, th[scope=row] { white-space: nowrap; }
    td.category svg.icon { width: 40px; height: 40px; vertical-align: middle; margin-right: 10px; }
    .age { color: inherit; opacity: 0.8; }
    td.quiet { font-weight: 700; background: #FFFFFF; color: #000000; outline: 3px solid #000000; outline-offset: -3px; }
    a { color: #0040A0; }
    nav a { margin-right: 16px; }
    figure { margin: 16px 0; }
    figure svg { max-width: 100%; height: auto; }
    """
}

/// One device's day: the day report drawn as inline SVG, with links to the days around it and to the file.
enum DayPage {
  static func document(device: String, day: LocalDay, report: DayReport, links: PageLinks) -> String {
    let id = HTML.escape(device)
    let previous = LocalDay.containing(epochSeconds: day.start - 1)
    let next = LocalDay.containing(epochSeconds: day.end)
    var svg = report.svg()
    if svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") { svg = String(svg[svg.index(after: end)...]) }
    return HTMLPage.head(title: "\(device) · \(day) · stressmon", style: FleetPage.style) + """

      <body>
      <main>
      <nav><a href="\(HTML.escape(links.fleet))">← Fleet</a>\
      <a href="\(HTML.escape(links.day(device, previous)))" rel="prev">← \(previous)</a>\
      <a href="\(HTML.escape(links.day(device, next)))" rel="next">\(next) →</a>\
      <a href="\(HTML.escape(links.svg(device, day)))">SVG file</a></nav>
      <h1>\(id) · \(day.weekdayName) \(day)</h1>
      <p class="meta">\(HTML.escape(report.summary.sentence))</p>
      <figure id="day-report">\(svg)</figure>
      </main>
      </body>
      </html>
      """
  }
}
