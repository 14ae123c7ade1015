import Foundation
import StressModel
import SyncWire

/// What the kiosk shows for one device at one moment.
public struct KioskView: Sendable {
  public var deviceId: String
  public var record: MeasurementRecord?
  public var now: Double
  public var options: HubOptions
  /// The last hours (`HubOptions.trendHours`), one point per slot.
  public var trend: [TrendPoint]

  public init(
    deviceId: String, record: MeasurementRecord?, now: Double, options: HubOptions, trend: [TrendPoint] = []
  ) {
    self.deviceId = deviceId
    self.record = record
    self.now = now
    self.options = options
    self.trend = trend
  }

  /// The slots of the trend, ending at the next slot boundary after `now`.
  public var buckets: TrendBuckets { Self.buckets(now: now, options: options) }

  public static func buckets(now: Double, options: HubOptions) -> TrendBuckets {
    let count = max(1, Int((options.trendHours * 3600 / options.trendStep).rounded()))
    let end = ((now / options.trendStep).rounded(.down) + 1) * options.trendStep
    return TrendBuckets(from: end - Double(count) * options.trendStep, step: options.trendStep, count: count)
  }

  /// The category on show; nil when there is no data or the newest window is uncategorised.
  public var category: StressCategory? { record?.category }

  /// Seconds since the newest window ended; nil without data. Negative when the device's clock runs ahead.
  public var age: Double? { record.map { now - $0.windowEnd } }

  public var isStale: Bool { age.map { $0 > options.staleAfter } ?? true }

  /// Page background: the category colour while the data is fresh; grey once it is stale (the warning, not the
  /// category, is what a passer-by must read then); a dark neutral without a category.
  public var background: RGBColour {
    guard let category else { return KioskPage.neutralBackground }
    return record != nil && isStale ? KioskPage.staleBackground : category.colour
  }

  /// Text and ink colour: black or white, whichever contrasts more with the background (WCAG 2.1 AA).
  public var foreground: RGBColour { KioskContrast.textColour(on: background) }
}

/// The kiosk page: one wearer's current category, full screen, readable without colour (icon + fill pattern),
/// with level, HRV, time in the reader's zone, the last hours as a trend, and a stale-data warning that takes
/// over the page. The page script (`PageScript`) fetches `/kiosk/{device}/panel` every few seconds and puts it
/// in place, so every drawing comes from the server's category table; without the script a meta refresh
/// reloads the page.
public enum KioskPage {
  /// Background without a category (no data, uncategorised): dark grey, 15.9:1 with white text.
  public static let neutralBackground = RGBColour(hex: 0x1C1C1E)
  /// Background of stale data: a mid grey (9.4:1 with black text), so the category's colour no longer speaks.
  public static let staleBackground = RGBColour(hex: 0xAEAEB2)

  /// The page's style: sizes in viewport units (a phone and a wall display alike), icon beside the text in
  /// landscape and above it in portrait; motion only under `prefers-reduced-motion: no-preference`.
  static let style = """
    html, body { margin: 0; height: 100%; font-family: system-ui, "DejaVu Sans", sans-serif; }
    #panel { box-sizing: border-box; min-height: 100vh; display: flex; flex-direction: column;
      align-items: center; justify-content: center; text-align: center; padding: 2vh 3vw; }
    #panel .now { display: flex; flex-direction: row; align-items: center; justify-content: center; }
    #panel .icon { height: 40vh; width: 40vh; max-width: 42vw; flex: none; margin-right: 4vw; }
    #panel .text { text-align: left; max-width: 52vw; }
    #panel h1 { font-size: 11vh; margin: 0; line-height: 1.05; }
    #panel .level { font-size: 5vh; margin: 1.5vh 0; font-weight: 600; }
    #panel .summary { font-size: 2.6vh; margin: 1vh 0; }
    #panel .time { font-size: 2.6vh; margin: 1vh 0; }
    #panel .trend-card { background: #FFFFFF; color: #1C1C1E; border-radius: 1.2vh; padding: 1vh 1.5vw;
      margin-top: 2.5vh; }
    #panel .trend-card svg { display: block; height: 30vh; width: auto; max-width: 88vw; }
    #panel.stale .icon { height: 24vh; width: 24vh; }
    #panel.stale h1 { font-size: 6vh; }
    #panel.stale .level { font-size: 3.5vh; }
    .warning { font-size: 3vh; font-weight: 700; background: #FFFFFF; color: #000000; border: 0.4vh solid #000000;
      padding: 1vh 2vw; margin: 1.5vh 0 0; border-radius: 1vh; }
    #panel .warning.stale { font-size: 5.5vh; line-height: 1.2; border-width: 0.8vh; padding: 2vh 3vw; margin: 0 0 3vh; }
    #panel .warning.stale .hint { display: block; font-size: 2.8vh; font-weight: 600; margin-top: 1vh; }
    .hidden { display: none; }
    #offline { position: fixed; top: 0; left: 0; right: 0; margin: 0; border-radius: 0; z-index: 2; }
    @media (orientation: portrait) {
      #panel .now { flex-direction: column; }
      #panel .icon { height: 30vh; width: 30vh; max-width: 70vw; margin: 0 0 2vh; }
      #panel .text { text-align: center; max-width: 92vw; }
      #panel h1 { font-size: 7.5vh; }
      #panel .level { font-size: 3.6vh; }
      #panel .trend-card { width: 92vw; box-sizing: border-box; }
      #panel .trend-card svg { width: 100%; height: auto; max-width: none; }
      #panel.stale .icon { height: 18vh; width: 18vh; }
      #panel .warning.stale { font-size: 4vh; }
    }
    @media (prefers-reduced-motion: no-preference) {
      #panel { transition: background-color 0.8s ease; }
      .warning { animation: attention 2s ease-in-out 3; }
      @keyframes attention { 50% { transform: scale(1.04); } }
    }
    """

  /// The whole HTML document. `panelURL` is the fragment the script fetches (with the page's `?key=`).
  public static func document(_ view: KioskView, panelURL: String) -> String {
    let refreshMs = max(200, Int(view.options.kioskRefresh * 1000))
    let fallback = max(30, Int(view.options.kioskRefresh * 6))
    return HTMLPage.head(title: title(view), style: style, refreshSeconds: fallback) + """

      <body data-now="\(PageTime.stamp(view.now))">
      <p id="offline" class="warning offline hidden" role="alert">The hub does not answer: the page shows the last \
      data it had.</p>
      <div id="live" data-refresh="\(HTML.escape(panelURL))" data-refresh-ms="\(refreshMs)">\(panel(view))</div>
      </body>
      </html>
      """
  }

  /// The `<main id="panel">` element: everything that changes with the data.
  public static func panel(_ view: KioskView) -> String {
    let fg = view.foreground
    let bg = view.background
    var body = ""
    var now = ""
    let stale = view.record != nil && view.isStale
    if stale, let age = view.age {
      body += "<p class=\"warning stale\" role=\"status\">⚠ Stale data: nothing new for \(PageTime.duration(age))."
        + "<span class=\"hint\">Check the sensor and its network. Below: the last data the hub has.</span></p>"
    }
    if let record = view.record, let category = view.category {
      now += KioskIconSVG.svg(for: category, ink: fg, paper: bg)
      now += "<div class=\"text\"><h1>\(stale ? "Last: " : "")\(HTML.escape(category.displayName))</h1>"
      var figures: [String] = []
      if let level = record.stressLevel { figures.append("Stress \(StressLevel.text(level)) / 100") }
      if let hrv = record.sdnnMs { figures.append("HRV \(hrv.formatted(decimals: 0)) ms") }
      if !figures.isEmpty { now += "<p class=\"level\">\(figures.joined(separator: " · "))</p>" }
      now += "<p class=\"summary\">\(HTML.escape(category.summary))</p>"
    } else if let record = view.record {
      now += "<div class=\"text\"><h1>Uncategorised</h1>"
      now += "<p class=\"level\">\(HTML.escape(record.quality.displayText.capitalisedFirst))</p>"
      now += "<p class=\"summary\">The last window could not be scored, so no stress level is shown.</p>"
    } else {
      now += "<div class=\"text\"><h1>No data yet</h1>"
      now += "<p class=\"summary\">The hub has no measurement from device \(HTML.escape(view.deviceId)) yet.</p>"
    }
    if let record = view.record {
      now += "<p class=\"time\">Measured \(PageTime.time(record.windowEnd)) "
        + "\(PageTime.ageSpan(of: record.windowEnd, now: view.now)) · device \(HTML.escape(view.deviceId))</p>"
    }
    body += "<div class=\"now\">\(now)</div></div>"
    if view.record != nil {
      let chart = TrendChart(buckets: view.buckets, points: view.trend, grey: stale, size: .kiosk, idPrefix: "k-")
      body += "<div class=\"trend-card\">\(chart.svg())</div>"
    }
    let state = view.category?.rawValue ?? (view.record == nil ? "none" : "uncategorised")
    return "<main id=\"panel\" class=\"\(stale ? "stale" : "fresh")\" data-category=\"\(state)\" "
      + "data-stale=\"\(view.isStale)\" data-now=\"\(PageTime.stamp(view.now))\" "
      + "data-title=\"\(HTML.escape(title(view)))\" style=\"background-color:\(bg.hexString);color:\(fg.hexString)\">"
      + "\(body)</main>"
  }

  static func title(_ view: KioskView) -> String {
    let stale = view.record != nil && view.isStale ? "Stale · " : ""
    return "\(stale)\(view.category?.displayName ?? "No category") · \(view.deviceId) · stressmon"
  }
}

extension String {
  var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
}
