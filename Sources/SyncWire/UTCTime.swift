/// A Unix time as a UTC calendar date and time, by integer arithmetic (no C library, no Foundation): the wire
/// messages name times as dates, and the store's ISO 8601 formatting uses the same breakdown.
public struct UTCTime: Sendable, Equatable {
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int

  /// The UTC date and time of `epochSeconds` (whole seconds since 1970-01-01T00:00:00Z; earlier ones too).
  public init(epochSeconds: Int64) {
    let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
    let secondOfDay = Int(epochSeconds - days * 86_400)
    // Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms", civil_from_days.
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
    month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
    year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    hour = secondOfDay / 3_600
    minute = secondOfDay % 3_600 / 60
    second = secondOfDay % 60
  }

  /// `2026-01-01T09:30:00` (no zone designator).
  public var text: String {
    Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T" + Self.pad(hour, 2) + ":"
      + Self.pad(minute, 2) + ":" + Self.pad(second, 2)
  }

  /// `2026-01-01T09:30:00Z` for a Unix time (rounded down to the second); the number itself when not finite or
  /// beyond the years 0-9999.
  public static func iso8601(_ seconds: Double) -> String {
    guard seconds.isFinite, abs(seconds) < 253_402_300_800 else { return "\(seconds)" }
    return UTCTime(epochSeconds: Int64(seconds.rounded(.down))).text + "Z"
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    var text = String(value)
    while text.count < width { text = "0" + text }
    return text
  }
}
