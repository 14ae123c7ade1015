import Foundation
import StressModel
import SyncWire

/// What the kiosk shows for one device at one moment.
public struct KioskView: Sendable {
  public var deviceId: String
  public var record: MeasurementRecord?
  public var now: Double
  public var options: HubOptions

  public init(deviceId: String, record: MeasurementRecord?, now: Double, options: HubOptions) {
    self.deviceId = deviceId
    self.record = record
    self.now = now
    self.options = options
  }

  /// The category on show; nil when there is no data or the newest window is uncategorised.
  public var category: StressCategory? { record?.category }

  /// Seconds since the newest window ended; nil without data.
  public var age: Double? { record.map { max(0, now - $0.windowEnd) } }

  public var isStale: Bool { age.map { $0 > options.staleAfter } ?? true }

  /// Page background: the category colour, or a neutral dark grey without a category.
  public var background: RGBColour { category?.colour ?? KioskPage.neutralBackground }

  /// Text and ink colour: black or white, whichever contrasts more with the background (WCAG 2.1 AA).
  public var foreground: RGBColour { KioskContrast.textColour(on: background) }
}

/// The kiosk page: one wearer's current category, full screen, readable without colour (icon + fill pattern),
/// with level, time and a stale-data warning. It refreshes its panel by polling `/kiosk/{device}/panel`, so
/// every drawing comes from the server's category table; the script only swaps HTML.
public enum KioskPage {
  /// Background without a category (no data, uncategorised): dark grey, 15.9:1 with white text.
  public static let neutralBackground = RGBColour(hex: 0x1C1C1E)

  /// The page's style: motion only under `prefers-reduced-motion: no-preference`.
  static let style = """
    html, body { margin: 0; height: 100%; font-family: system-ui, "DejaVu Sans", sans-serif; }
    #panel { box-sizing: border-box; min-height: 100vh; display: flex; flex-direction: column;
      align-items: center; justify-content: center; text-align: center; padding: 3vh 4vw; }
    #panel .icon { height: 42vh; width: 42vh; max-width: 80vw; }
    #panel h1 { font-size: 9vh; margin: 2vh 0 0; line-height: 1.1; }
    #panel .level { font-size: 5vh; margin: 1vh 0; font-weight: 600; }
    #panel .summary { font-size: 2.8vh; max-width: 60em; margin: 1vh 0; }
    #panel .time { font-size: 2.6vh; margin: 1vh 0; }
    .warning { font-size: 3vh; font-weight: 700; background: #FFFFFF; color: #000000; border: 0.4vh solid #000000;
      padding: 1vh 2vw; margin: 1.5vh 0 0; border-radius: 1vh; }
    #offline[hidden] { display: none; }
    #offline { position: fixed; top: 0; left: 0; right: 0; margin: 0; border-radius: 0; }
    @media (prefers-reduced-motion: no-preference) {
      #panel { transition: background-color 0.8s ease; }
      .warning { animation: attention 2s ease-in-out 3; }
      @keyframes attention { 50% { transform: scale(1.04); } }
    }
    """

  /// The page's one script, the same text on every kiosk page (so the page's policy allows it by its hash): it
  /// reads the device and the refresh period from its element's data attributes.
  public static let script = """

    (function () {
      var element = document.currentScript;
      // The page's own query (its ?key=) goes with every refresh.
      var url = "/kiosk/" + encodeURIComponent(element.dataset.device) + "/panel" + window.location.search;
      var offline = document.getElementById("offline");
      function refresh() {
        fetch(url, { cache: "no-store" }).then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.text();
        }).then(function (html) {
          var current = document.getElementById("panel");
          var holder = document.createElement("div");
          holder.innerHTML = html;
          var next = holder.firstElementChild;
          if (next && current && next.outerHTML !== current.outerHTML) { current.replaceWith(next); }
          document.title = next ? next.getAttribute("data-title") : document.title;
          offline.hidden = true;
        }).catch(function () { offline.hidden = false; });
      }
      setInterval(refresh, Number(element.dataset.refreshMs));
    })();

    """

  /// The inline scripts `document` embeds, for the page's Content-Security-Policy.
  static var scripts: [String] { [script] }

  /// The whole HTML document.
  public static func document(_ view: KioskView) -> String {
    let refreshMs = Int(view.options.kioskRefresh * 1000)
    let device = HTML.escape(view.deviceId)
    return HTMLPage.head(title: title(view), style: style) + """

      <body>
      <p id="offline" class="warning" role="alert" hidden>The hub does not answer: the page shows the last data it had.</p>
      \(panel(view))
      <script data-device="\(device)" data-refresh-ms="\(refreshMs)">\(script)</script>
      </body>
      </html>
      """
  }

  /// The `<main id="panel">` element: everything that changes with the data.
  public static func panel(_ view: KioskView) -> String {
    let fg = view.foreground.hexString
    let bg = view.background.hexString
    var body = ""
    if let record = view.record, let category = view.category {
      body += KioskIconSVG.svg(for: category, ink: view.foreground)
      body += "<h1>\(HTML.escape(category.displayName))</h1>"
      if let level = record.stressLevel {
        body += "<p class=\"level\">Stress \(level.formatted(decimals: 0)) / 100</p>"
      }
      body += "<p class=\"summary\">\(HTML.escape(category.summary))</p>"
    } else if let record = view.record {
      body += "<h1>Uncategorised</h1>"
      body += "<p class=\"level\">\(HTML.escape(record.quality.displayText.capitalisedFirst))</p>"
      body += "<p class=\"summary\">The last window could not be scored, so no stress level is shown.</p>"
    } else {
      body += "<h1>No data yet</h1>"
      body += "<p class=\"summary\">The hub has no measurement from device \(HTML.escape(view.deviceId)) yet.</p>"
    }
    if let record = view.record {
      body += "<p class=\"time\">Measured \(timeText(record.windowEnd)) · device \(HTML.escape(view.deviceId))</p>"
    }
    if view.record != nil, view.isStale, let age = view.age {
      body += "<p class=\"warning stale\" role=\"status\">⚠ Stale data: nothing new for \(ageText(age)). "
        + "Check the sensor and its network.</p>"
    }
    let state = view.category?.rawValue ?? (view.record == nil ? "none" : "uncategorised")
    return "<main id=\"panel\" data-category=\"\(state)\" data-stale=\"\(view.isStale)\" "
      + "data-title=\"\(HTML.escape(title(view)))\" style=\"background-color:\(bg);color:\(fg)\">\(body)</main>"
  }

  static func title(_ view: KioskView) -> String {
    "\(view.category?.displayName ?? "No category") · \(view.deviceId) · stressmon"
  }

  /// "14:05 UTC, 22 Nov 2026": the kiosk and the hub may be in different time zones, so the zone is named.
  static func timeText(_ epoch: Double) -> String {
    let date = Date(timeIntervalSince1970: epoch)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
    let iso = ISO8601DateFormatter().string(from: date)
    return "<time datetime=\"\(iso)\">\(two(c.hour)):\(two(c.minute)) UTC, \(c.day ?? 0) \(months[(c.month ?? 1) - 1]) \(c.year ?? 0)</time>"
  }

  static func ageText(_ seconds: Double) -> String {
    let minutes = Int(seconds / 60)
    if minutes < 120 { return "\(max(minutes, 1)) minutes" }
    let hours = minutes / 60
    if hours < 48 { return "\(hours) hours" }
    return "\(hours / 24) days"
  }
}

extension String {
  var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
}
