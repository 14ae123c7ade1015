import DayReport
import Platform
import Testing

@Suite("Local calendar days")
struct LocalDayTests {
  @Test("YYYY-MM-DD dates that exist are accepted", arguments: ["2024-03-12", "2024-02-29", "1970-01-02", "2199-12-31"])
  func validDates(text: String) throws {
    let day = try #require(LocalDay(parsing: text))
    #expect(day.description == text)
  }

  @Test("Anything else is refused", arguments: [
    "2023-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-3-12", "12/03/2024", "2024-03-12 ", "20240312",
    "abcd-ef-gh", "", "1969-12-31", "2024-03-1x", "+024-03-12",
  ])
  func invalidDates(text: String) {
    #expect(LocalDay(parsing: text) == nil)
  }

  @Test("A day runs from local midnight to the next one, and every instant inside it belongs to it")
  func bounds() throws {
    let day = try #require(LocalDay(parsing: "2024-03-12"))
    let next = try #require(LocalDay(parsing: "2024-03-13"))
    #expect(day.end == next.start)
    // 24 h, or 23/25 h where the local zone changes clocks that day
    #expect([82_800.0, 86_400, 90_000].contains(day.duration))
    #expect(LocalDay.clockText(epochSeconds: day.start) == "00:00")
    #expect(LocalDay.clockText(epochSeconds: day.instant(hour: 13) + 15 * 60) == "13:15")
    #expect(day.instant(hour: 24) == day.end)
    #expect(day.clockText(day.end) == "24:00" && day.clockText(day.end - 60) == "23:59")
    for instant in [day.start, day.start + 1, day.instant(hour: 12), day.end - 1] {
      #expect(LocalDay.containing(epochSeconds: instant) == day)
    }
    #expect(LocalDay.containing(epochSeconds: day.end) == next)
    #expect(day.weekdayName == "Tuesday" && next.weekdayName == "Wednesday")
    #expect(day < next)
  }

  @Test("Today is the day that contains the current time")
  func today() {
    let before = Double(time(nil))
    let today = LocalDay.today()
    let after = Double(time(nil))
    // Unless midnight passed between the two readings, today holds both
    #expect((today.start <= before && before < today.end) || (today.start <= after && after < today.end))
  }
}
