import DayReport
import Raster
import StressModel
import SyncWire
import TestSupport
import Testing

/// How the picture is framed: zoomed to the measured span, the hours still to come left blank, the title and
/// summary left to a page that prints them itself.
@Suite("The day report zoomed, today, and without its header")
struct DayReportFramingTests {
  @Test("zoomed, the axis spans the whole hours around the measured windows, with ticks the span needs")
  func zoom() throws {
    let records = try DayFixture.records()
    let day = DayFixture.day
    let zoomed = DayReport(records: records, day: day, options: .init(zoom: true))
    let time = zoomed.geometry.time
    // The fixture's windows run from 08:30 to 19:59 local time
    #expect(time.start == day.instant(hour: 8) && time.end == day.instant(hour: 20))
    #expect(time.ticks == stride(from: 8, through: 20, by: 2).map { day.instant(hour: $0) })
    #expect(time.secondsPerPixel == 12 * 3600 / Double(ReportGeometry.plotWidth))
    // One session of 3.6 minutes zooms to its hour, ticks every quarter-hour
    let short = records.filter { $0.windowEnd > day.instant(hour: 13) && $0.windowEnd < day.instant(hour: 14) }
    let hour = DayReport(records: short, day: day, options: .init(zoom: true)).geometry.time
    #expect(hour.start == day.instant(hour: 13) && hour.end == day.instant(hour: 14))
    #expect(hour.ticks.count == 5)
    // The whole day is unchanged: 3-hour ticks from midnight to midnight
    let whole = DayReport(records: records, day: day).geometry.time
    #expect(whole.start == day.start && whole.end == day.end && whole.ticks.count == 9)
    // The same windows land on the same lines, only wider: each good run is still one line per chart
    let lines = zoomed.svg().components(separatedBy: "<polyline").count
    #expect(lines == DayReport(records: records, day: day).svg().components(separatedBy: "<polyline").count)
  }

  @Test("today, the hours after now are blank, not hatched like time without data")
  func hoursToCome() throws {
    let day = DayFixture.day
    let now = day.instant(hour: 14)
    let records = try DayFixture.records().filter { $0.windowEnd <= now }
    let report = DayReport(records: records, day: day, options: .init(now: now))
    let image = report.raster()
    let axis = report.geometry.stress, time = report.geometry.time
    let noDataInk = RGBColour(hex: 0xC7C7CC)
    func count(_ columns: ClosedRange<Int>, _ matches: (RGBColour) -> Bool) -> Int {
      var found = 0
      for x in columns {
        for y in axis.rect.y..<axis.rect.maxY where image[x, y].map(matches) == true { found += 1 }
      }
      return found
    }
    let nowX = Int(time.x(now).rounded(.up)) + 2
    let lastX = Int(time.x(records.last!.windowEnd).rounded(.up)) + 2
    let bands = Set(StressCategory.allCases.flatMap { [ReportStyle.bandInk($0), ReportStyle.bandPaper($0)] })
    // After now: no hatching and no bands, only paper, the grid and the words "to come"
    let future = nowX...(axis.rect.maxX - 2)
    #expect(count(future) { $0 == noDataInk } == 0)
    #expect(count(future) { bands.contains($0) } == 0)
    #expect(count(future) { $0 == ReportStyle.paper } > (future.count * axis.rect.height) * 9 / 10)
    // Between the last window and now: hatched, no data
    #expect(count(lastX...(nowX - 4)) { $0 == noDataInk } > 100)
    // A past day keeps its evening hatched
    let past = DayReport(records: records, day: day, options: .init(now: day.end + 3600)).raster()
    var hatched = 0
    for x in future {
      for y in axis.rect.y..<axis.rect.maxY where past[x, y] == noDataInk { hatched += 1 }
    }
    #expect(hatched > 100)
    #expect(report.svg().contains("to come 14:00-24:00"))
  }

  @Test("without its header the picture starts at the legend and does not repeat the summary")
  func headerless() throws {
    let records = try DayFixture.records()
    let full = DayReport(records: records, day: DayFixture.day)
    let bare = DayReport(records: records, day: DayFixture.day, options: .init(header: false))
    let svg = bare.svg()
    #expect(!svg.contains(full.summary.sentenceParts[0]))
    // The title stays the picture's accessible name, no longer drawn as text
    let title = "Stress on \(DayFixture.day.weekdayName) \(DayFixture.day)"
    #expect(svg.components(separatedBy: title).count - 1 == 1)
    #expect(full.svg().components(separatedBy: title).count - 1 == 2)
    #expect(bare.geometry.stress.rect.y < full.geometry.stress.rect.y)
    #expect(bare.geometry.height < full.geometry.height)
    #expect(full.svg().contains(full.summary.sentenceParts[0]))
  }
}
