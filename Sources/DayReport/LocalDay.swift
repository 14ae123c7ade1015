import Platform

/// One calendar day in the local time zone (TZ, /etc/localtime), from 00:00 to the next 00:00. The C library's
/// `mktime`/`localtime_r` do the calendar, so a day with a daylight-saving change is 23 or 25 hours long.
public struct LocalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
  // MARK: - Properties

  public let year: Int
  public let month: Int
  public let day: Int
  /// Local midnight at the start of the day, seconds since the Unix epoch.
  public let start: Double
  /// Local midnight at the start of the next day.
  public let end: Double

  /// Years accepted from the command line: the Unix epoch to a far but plausible future.
  public static let acceptedYears: ClosedRange<Int> = 1970...2199

  // MARK: - Initialization

  /// The day, or nil when it does not exist (2023-02-29, month 13) or lies outside `acceptedYears`.
  public init?(year: Int, month: Int, day: Int) {
    guard Self.acceptedYears.contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
    guard let start = Self.localMidnight(year: year, month: month, day: day),
      let end = Self.localMidnight(year: year, month: month, day: day + 1)
    else { return nil }
    // mktime normalises 31 April to 1 May: the day exists only if it comes back unchanged.
    let check = Self.brokenDown(start)
    guard Int(check.tm_year) + 1900 == year, Int(check.tm_mon) + 1 == month, Int(check.tm_mday) == day else {
      return nil
    }
    self.year = year
    self.month = month
    self.day = day
    self.start = start
    self.end = end
  }

  /// Parses `YYYY-MM-DD` (ISO 8601 calendar date, as `--day` takes it). Nil for anything else.
  public init?(parsing text: String) {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
    self.init(year: year, month: month, day: day)
  }

  /// The local day an instant falls on.
  public static func containing(epochSeconds: Double) -> LocalDay {
    let parts = brokenDown(epochSeconds)
    // A day that exists by construction: it came from localtime_r. Fall back to the epoch day only if the
    // instant lies outside `acceptedYears`.
    return LocalDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
      ?? LocalDay(year: 1970, month: 1, day: 1)!
  }

  /// Today, by the system clock.
  public static func today() -> LocalDay { containing(epochSeconds: Double(time(nil))) }

  // MARK: - Public

  /// `YYYY-MM-DD`.
  public var description: String { pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) }

  /// "Monday" … "Sunday".
  public var weekdayName: String {
    let names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    return names[Int(Self.brokenDown(start).tm_wday)]
  }

  /// Length of the day in seconds (86 400, or ±3 600 on a daylight-saving change).
  public var duration: Double { end - start }

  /// The instant of local `hour`:00 on this day (0...24; 24 is the next midnight). On a daylight-saving day
  /// this follows the wall clock, so hour ticks line up with the clock, not with multiples of 3 600 s.
  public func instant(hour: Int) -> Double {
    hour >= 24 ? end : (Self.localMidnight(year: year, month: month, day: day, hour: hour) ?? start)
  }

  /// Local wall-clock time of an instant as `HH:MM`.
  public static func clockText(epochSeconds: Double) -> String {
    let parts = brokenDown(epochSeconds)
    return pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2)
  }

  /// Wall-clock `HH:MM` of an instant of this day, with the closing midnight written "24:00".
  public func clockText(_ epochSeconds: Double) -> String {
    epochSeconds >= end ? "24:00" : Self.clockText(epochSeconds: epochSeconds)
  }

  /// The time zone in force at an instant, e.g. "CET, UTC+01:00" (abbreviation as the C library names it).
  public static func zoneText(epochSeconds: Double) -> String {
    let parts = brokenDown(epochSeconds)
    let offsetMinutes = Int(parts.tm_gmtoff) / 60
    let sign = offsetMinutes < 0 ? "-" : "+"
    let offset = "UTC" + sign + pad(abs(offsetMinutes) / 60, 2) + ":" + pad(abs(offsetMinutes) % 60, 2)
    guard let zone = parts.tm_zone else { return offset }
    let name = String(cString: zone)
    return name.isEmpty || name == "UTC" ? offset : name + ", " + offset
  }

  public static func < (lhs: LocalDay, rhs: LocalDay) -> Bool { lhs.start < rhs.start }

  // MARK: - Private

  private static func localMidnight(year: Int, month: Int, day: Int, hour: Int = 0) -> Double? {
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_isdst = -1  // let the C library decide whether daylight saving applies
    let seconds = mktime(&parts)
    return seconds == -1 ? nil : Double(seconds)
  }

  private static func brokenDown(_ epochSeconds: Double) -> tm {
    var seconds = time_t(epochSeconds.rounded(.down))
    var parts = tm()
    _ = localtime_r(&seconds, &parts)
    return parts
  }
}

private func pad(_ value: Int, _ width: Int) -> String {
  var text = String(value)
  while text.count < width { text = "0" + text }
  return text
}
