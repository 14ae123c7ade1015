/// Why a text given as a day (`--day`, a `/days/…` path) is not one: it is not shaped `YYYY-MM-DD`, or it is a
/// date the calendar lacks. The description says which, so "2023-02-29" is not answered with the format again.
public enum LocalDayParseError: Error, Equatable, CustomStringConvertible {
  /// Not `YYYY-MM-DD` digits.
  case malformed(String)
  /// Shaped like a date, but no such day: 2023-02-29, 2024-04-31, month 13.
  case noSuchDay(String, reason: String)
  /// A year outside `LocalDay.acceptedYears`.
  case outsideYears(String)

  public var description: String {
    switch self {
    case .malformed(let text): "'\(text)' is not a date as YYYY-MM-DD (e.g. 2024-03-12)"
    case .noSuchDay(let text, let reason): "\(text) is not a day of the calendar: \(reason)"
    case .outsideYears(let text):
      "\(text) is outside the years accepted, \(LocalDay.acceptedYears.lowerBound)-\(LocalDay.acceptedYears.upperBound)"
    }
  }
}

extension LocalDay {
  /// Parses `YYYY-MM-DD`, saying what is wrong when it is not a day.
  public static func parse(_ text: String) throws(LocalDayParseError) -> LocalDay {
    let bytes = Array(text.utf8)
    let shaped = bytes.count == 10
      && bytes.indices.allSatisfy { [4, 7].contains($0) ? bytes[$0] == 0x2D : (0x30...0x39).contains(bytes[$0]) }
    guard shaped else { throw .malformed(text) }
    if let day = LocalDay(parsing: text) { return day }
    func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
    let year = number(0..<4), month = number(5..<7), day = number(8..<10)
    guard acceptedYears.contains(year) else { throw .outsideYears(text) }
    throw .noSuchDay(text, reason: Self.whyNot(year: year, month: month, day: day))
  }

  /// "February 2023 has 28 days", "there is no month 13 (months are 01-12)", "days start at 01".
  static func whyNot(year: Int, month: Int, day: Int) -> String {
    guard (1...12).contains(month) else { return "there is no month \(month) (months are 01-12)" }
    let names = [
      "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
      "December",
    ]
    guard day >= 1 else { return "days start at 01" }
    let length = (28...31).last { LocalDay(year: year, month: month, day: $0) != nil } ?? 31
    return "\(names[month - 1]) \(year) has \(length) days"
  }
}
