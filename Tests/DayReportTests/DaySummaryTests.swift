import DayReport
import StressModel
import SyncWire
import TestSupport
import Testing

@Suite("The day's numbers")
struct DaySummaryTests {
  @Test("Time and windows per category and per unscored reason, means and gaps match a count made here")
  func summaryOfARealDay() throws {
    // Given a day of windows from real RR series, with a gap and unscored windows
    let records = try DayFixture.records()
    // When the summary is computed
    let summary = DayReport(records: records, day: DayFixture.day).summary
    // Then every window counts one 10-s step (results are 10 s apart except across the gaps)
    let good = records.filter { $0.quality == .good }
    #expect(summary.windows == records.count)
    #expect(abs(summary.windowStepSeconds - DayFixture.stepSeconds) < 1e-9)
    #expect(abs(summary.measuredMinutes - Double(records.count) * DayFixture.stepSeconds / 60) < 1e-6)
    for category in StressCategory.allCases {
      let count = good.filter { StressCategory(level: $0.stressLevel!) == category }.count
      #expect(summary.categories[category.rawValue]?.windows == count, "\(category)")
      #expect(abs((summary.categories[category.rawValue]?.minutes ?? -1) - Double(count) / 6) < 1e-6)
    }
    #expect(summary.categories["relaxed"]!.windows > 0 && summary.categories["mild"]!.windows > 0)
    // 180 s of poor signal starting every 10 s → 18 windows; 300 s of no contact → 30
    #expect(summary.uncategorised["poor_signal"]?.windows == 18)
    #expect(abs((summary.uncategorised["poor_signal"]?.minutes ?? -1) - 3) < 1e-9)
    #expect(summary.uncategorised["no_contact"]?.windows == 30)
    #expect(abs((summary.uncategorised["no_contact"]?.minutes ?? -1) - 5) < 1e-9)
    #expect(summary.uncategorised["saturated"]?.windows == 0)
    // Means over the scored windows only (the unscored ones carry figures that must not count)
    let meanHRV = good.map { $0.sdnnMs! }.reduce(0, +) / Double(good.count)
    let meanHR = good.map { $0.heartRateBpm! }.reduce(0, +) / Double(good.count)
    #expect(abs(summary.meanHrvMs! - meanHRV) < 1e-9)
    #expect(abs(summary.meanHeartRateBpm! - meanHR) < 1e-9)
    let allHRV = records.map { $0.sdnnMs! }.reduce(0, +) / Double(records.count)
    #expect(abs(meanHRV - allHRV) > 0.01, "the fixture's unscored windows must change the mean if counted")
  }

  @Test("Gaps: the left-out 10 minutes of the morning and the three breaks between sessions")
  func gaps() throws {
    let summary = DayReport(records: try DayFixture.records(), day: DayFixture.day).summary
    #expect(summary.gaps.count == 4)
    // Windows starting 1490 s in (ending 1550 s) and 2100 s in (slot from 2150 s) border the morning gap
    let first = try #require(summary.gaps.first)
    #expect(abs(first.start - (DayFixture.morning.start + 1550)) < 1e-6)
    #expect(abs(first.minutes - 10) < 1e-6)
    #expect(first.from == "08:55" && first.to == "09:05")
    // The gaps and the measured time tile the span from the first slot to the last window's end
    let measuredAndGaps = summary.measuredMinutes + summary.gaps.map(\.minutes).reduce(0, +)
    let records = try DayFixture.records()
    let span = (records.map(\.windowEnd).max()! - records.map(\.windowEnd).min()! + DayFixture.stepSeconds) / 60
    #expect(abs(measuredAndGaps - span) < 1e-6)
  }

  @Test("Windows of other days are left out; a lone window counts one default step; an empty day says so")
  func edges() throws {
    let records = try DayFixture.records()
    let nextDay = try #require(LocalDay(year: 2024, month: 3, day: 13))
    let moved = records.prefix(5).map { record -> MeasurementRecord in
      var copy = record
      copy.windowStart += 86_400
      copy.windowEnd += 86_400
      return copy
    }
    let summary = DayReport(records: Array(records.prefix(1)) + moved, day: DayFixture.day).summary
    #expect(summary.windows == 1)
    #expect(abs(summary.measuredMinutes - DayTimeline.defaultStepSeconds / 60) < 1e-9)
    #expect(DayReport(records: moved, day: nextDay).summary.windows == 5)
    let empty = DayReport(records: [], day: DayFixture.day).summary
    #expect(empty.windows == 0 && empty.measuredMinutes == 0 && empty.meanHrvMs == nil && empty.gaps.isEmpty)
    #expect(empty.sentence == "No measurements on 2024-03-12.")
  }

  @Test("Durations read as a person says them", arguments: [
    (0.0, "0 min"), (0.2, "<1 min"), (44.6, "45 min"), (60, "1 h 00 min"), (125.2, "2 h 05 min"),
  ])
  func durations(minutes: Double, text: String) {
    #expect(DaySummary.duration(minutes: minutes) == text)
  }

  @Test("The sentence names the time measured, each category present, the unscored time and the means")
  func sentence() throws {
    let records = try DayFixture.records()
    let summary = DayReport(records: records, day: DayFixture.day).summary
    let sentence = summary.sentence
    #expect(sentence.hasPrefix("Measured \(DaySummary.duration(minutes: Double(records.count) / 6)) (08:30-"))
    #expect(sentence.contains("Relaxed ") && sentence.contains("Mild "))
    #expect(!sentence.contains("High "))
    #expect(sentence.contains("Poor signal 3 min") && sentence.contains("No contact 5 min"))
    #expect(sentence.contains("Mean HRV \(summary.meanHrvMs!.formatted(decimals: 0)) ms"))
  }
}
