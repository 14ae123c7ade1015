import Platform
import SyncWire

/// ISO 8601 dates and times for the command line and exports, without full Foundation (no ICU): the parsing is
/// a small hand-written scanner, time-zone arithmetic is the C library's (`timegm`, `mktime`, `localtime_r`,
/// which read TZ and /etc/localtime).
public enum ISO8601Time {
  // MARK: - Parsing

  /// Seconds since the Unix epoch for `text`, or nil if it is not one of:
  /// `2024-05-01` (local midnight), `2024-05-01T10:00`, `2024-05-01T10:00:30`, `2024-05-01 10:00:30.25`,
  /// each optionally followed by `Z`, `±HH:MM`, `±HHMM` or `±HH`. Without a zone the time is local.
  public static func parse(_ text: String) -> Double? {
    var scanner = Scanner(Array(text.trimmingWhitespace().utf8))
    guard let year = scanner.digits(4), scanner.take(UInt8(ascii: "-")), let month = scanner.digits(2),
      scanner.take(UInt8(ascii: "-")), let day = scanner.digits(2)
    else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var fraction = 0.0
    if scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")) || scanner.take(UInt8(ascii: " ")) {
      guard let h = scanner.digits(2), scanner.take(UInt8(ascii: ":")), let m = scanner.digits(2) else { return nil }
      hour = h
      minute = m
      if scanner.take(UInt8(ascii: ":")) {
        guard let s = scanner.digits(2) else { return nil }
        second = s
        if scanner.take(UInt8(ascii: ".")) || scanner.take(UInt8(ascii: ",")) {
          guard let value = scanner.fraction() else { return nil }
          fraction = value
        }
      }
    }
    var offsetSeconds: Int?
    if scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z")) {
      offsetSeconds = 0
    } else if let sign = scanner.sign() {
      guard let hours = scanner.digits(2), hours <= 23 else { return nil }
      var minutes = 0
      if scanner.take(UInt8(ascii: ":")) {
        guard let m = scanner.digits(2) else { return nil }
        minutes = m
      } else if let m = scanner.digits(2) {
        minutes = m
      }
      guard minutes <= 59 else { return nil }
      offsetSeconds = sign * (hours * 3600 + minutes * 60)
    }
    guard scanner.atEnd, (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
    else { return nil }

    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    let seconds: Int
    if let offsetSeconds {
      seconds = Int(timegm(&parts)) - offsetSeconds
    } else {
      parts.tm_isdst = -1
      let local = mktime(&parts)
      guard local != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
      seconds = Int(local)
    }
    // Reject dates the C library silently normalised (2024-02-30 → 2024-03-01).
    guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
    return Double(seconds) + fraction
  }

  // MARK: - Formatting

  /// `2024-05-01T10:00:00Z`, or with `fractionDigits` (1-6) `2024-05-01T10:00:00.250Z`.
  public static func formatUTC(_ seconds: Double, fractionDigits: Int = 0) -> String {
    let (whole, fraction) = split(seconds, digits: fractionDigits)
    return UTCTime(epochSeconds: Int64(whole)).text + fraction + "Z"
  }

  /// Local time with its UTC offset, for people: `2024-05-01 12:00:00+02:00`.
  public static func formatLocal(_ seconds: Double) -> String {
    let (whole, _) = split(seconds, digits: 0)
    var time = time_t(whole)
    var parts = tm()
    localtime_r(&time, &parts)
    let offset = Int(parts.tm_gmtoff)
    let sign = offset < 0 ? "-" : "+"
    let minutes = abs(offset) / 60
    return format(parts, separator: " ") + sign + pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2)
  }

  // MARK: - Private

  private static func split(_ seconds: Double, digits: Int) -> (Int, String) {
    let digits = min(6, max(0, digits))
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (seconds * scale).rounded(.down)
    let whole = Int((scaled / scale).rounded(.down))
    guard digits > 0 else { return (whole, "") }
    let fractional = Int(scaled - Double(whole) * scale)
    return (whole, "." + pad(fractional, digits))
  }

  private static func format(_ parts: tm, separator: String = "T") -> String {
    pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
      + separator + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    var text = String(value)
    while text.count < width { text = "0" + text }
    return text
  }

  /// A cursor over ASCII bytes.
  private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func digits(_ count: Int) -> Int? {
      guard index + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<index + count] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      index += count
      return value
    }

    mutating func fraction() -> Double? {
      var value = 0.0
      var scale = 0.1
      let start = index
      while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
        value += Double(bytes[index] - UInt8(ascii: "0")) * scale
        scale /= 10
        index += 1
      }
      return index > start ? value : nil
    }

    mutating func sign() -> Int? {
      if take(UInt8(ascii: "+")) { return 1 }
      if take(UInt8(ascii: "-")) { return -1 }
      return nil
    }
  }
}

extension String {
  fileprivate func trimmingWhitespace() -> String {
    var view = Substring(self)
    while let first = view.first, first.isWhitespace { view.removeFirst() }
    while let last = view.last, last.isWhitespace { view.removeLast() }
    return String(view)
  }
}
