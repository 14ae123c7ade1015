/// Parses an HTTP `Retry-After` value (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. Written
/// without Foundation's date formatters, which would link ICU into the edge binary.
public enum RetryAfter {
  /// Seconds to wait from `now` (seconds since the Unix epoch); nil when the value is neither form.
  /// A date in the past gives 0.
  public static func seconds(from value: String, now: Double) -> Double? {
    let trimmed = value.trimmingSpaces()
    if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      return Double(trimmed)
    }
    guard let date = httpDate(trimmed) else { return nil }
    return max(0, date - now)
  }

  /// An HTTP-date as seconds since the Unix epoch. Accepts the preferred IMF-fixdate
  /// ("Sun, 06 Nov 1994 08:49:37 GMT") and the two obsolete forms RFC 9110 §5.6.7 says recipients must accept:
  /// RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994").
  public static func httpDate(_ text: String) -> Double? {
    let tokens = text.split { $0 == " " || $0 == "," || $0 == "-" }.map(String.init)
    // IMF-fixdate and RFC 850: weekday day month year time GMT. asctime: weekday month day time year.
    let day: Int, month: Int, year: Int, time: String
    if tokens.count == 6, tokens[5] == "GMT", let d = Int(tokens[1]), let m = monthNumber(tokens[2]), var y = Int(tokens[3]) {
      if tokens[3].count == 2 { y += y < 70 ? 2000 : 1900 }  // RFC 9110: two-digit years more than 50 y ahead are past
      (day, month, year, time) = (d, m, y, tokens[4])
    } else if tokens.count == 5, let m = monthNumber(tokens[1]), let d = Int(tokens[2]), let y = Int(tokens[4]) {
      (day, month, year, time) = (d, m, y, tokens[3])
    } else {
      return nil
    }
    let clock = time.split(separator: ":").compactMap { Int($0) }
    guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
      (0...60).contains(clock[2])
    else { return nil }
    let days = daysFromCivil(year: year, month: month, day: day)
    return Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2])
  }

  private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

  private static func monthNumber(_ name: String) -> Int? {
    months.firstIndex(of: name.lowercased()).map { $0 + 1 }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date
  /// Algorithms", days_from_civil).
  private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}

extension String {
  func trimmingSpaces() -> String {
    var view = Substring(self)
    while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
    while let last = view.last, last == " " || last == "\t" { view.removeLast() }
    return String(view)
  }
}
