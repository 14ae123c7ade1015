import Foundation

/// Times and ages as the pages print them. The hub writes UTC (it does not know the reader's zone); the page
/// script (`PageScript`) rewrites each `<time data-ts>` in the browser's zone and each age against the hub's
/// clock, with the same words as here, so the page reads the same before and after the script runs.
enum PageTime {
  private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

  /// `<time>` of an instant: "14:05 UTC, 22 Nov 2026" until the script writes it in local time. `clockOnly`:
  /// "14:05 UTC" (the script writes "14:05").
  static func time(_ epoch: Double, clockOnly: Bool = false) -> String {
    let date = Date(timeIntervalSince1970: epoch)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    let clock = "\(two(c.hour ?? 0)):\(two(c.minute ?? 0)) UTC"
    let text = clockOnly ? clock : "\(clock), \(c.day ?? 0) \(months[(c.month ?? 1) - 1]) \(c.year ?? 0)"
    let iso = ISO8601DateFormatter().string(from: date)
    return "<time datetime=\"\(iso)\" data-ts=\"\(stamp(epoch))\"\(clockOnly ? " data-format=\"clock\"" : "")>"
      + "\(text)</time>"
  }

  /// `(3 min ago)` as a span the script keeps current.
  static func ageSpan(of epoch: Double, now: Double) -> String {
    "<span class=\"age\" data-ts=\"\(stamp(epoch))\">(\(age(now - epoch)))</span>"
  }

  /// "just now", "12 min ago", "3 h ago", "2 days ago"; a time ahead of the hub's clock (a device whose clock runs
  /// ahead) says so instead of passing as "just now".
  static func age(_ seconds: Double) -> String {
    if seconds < 0 { return "\(duration(-seconds)) ahead of the hub's clock" }
    if seconds < 60 { return "just now" }
    return "\(duration(seconds)) ago"
  }

  /// "<1 min", "45 min", "5 h", "3 days" (whole units, rounded down).
  static func duration(_ seconds: Double) -> String {
    let minutes = Int((seconds / 60).rounded(.down))
    if minutes < 1 { return "<1 min" }
    if minutes < 120 { return "\(minutes) min" }
    let hours = minutes / 60
    if hours < 48 { return "\(hours) h" }
    return "\(hours / 24) days"
  }

  /// A span the script fills with the browser's zone ("UTC+05:30"); "UTC" until then.
  static let zoneSpan = "<span class=\"zone\">UTC</span>"

  /// Epoch seconds as the pages carry them: whole seconds.
  static func stamp(_ epoch: Double) -> String { String(Int64(epoch.rounded(.down))) }

  private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
