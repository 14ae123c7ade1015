import DayReport
import Raster
import StressModel
import SyncWire
import TestSupport
import Testing

@Suite("The day report as pixels")
struct DayReportRasterTests {
  static let lineColours: Set<RGBColour> = [ReportStyle.stressLine, ReportStyle.hrvLine, ReportStyle.heartRateLine]

  @Test("At a window's level the band shows that window's category: its pattern, in its colour, and the line")
  func bandAtTheLevelOfAWindow() throws {
    // Given the real day and its picture
    let records = try DayFixture.records()
    let report = DayReport(records: records, day: DayFixture.day)
    let image = report.raster()
    let axis = report.geometry.stress
    let time = report.geometry.time
    // Lines join per-pixel means: the scored windows ending in each pixel column, averaged
    let columns = Dictionary(grouping: records.filter { $0.quality == .good }) {
      Int(time.x($0.windowEnd).rounded(.down))
    }
    for category in [StressCategory.relaxed, .mild] {
      // When we look at a column whose mean level falls in this category, away from the band edges
      let (column, levels) = try #require(columns.map { ($0.key, $0.value.map { $0.stressLevel! }) }
        .sorted { $0.0 < $1.0 }
        .first { _, levels in
          let mean = levels.reduce(0, +) / Double(levels.count)
          let (lower, upper) = category.levelRange
          return mean - lower >= 2 && upper - mean >= 2
        })
      let level = levels.reduce(0, +) / Double(levels.count)
      let row = Int(axis.y(level).rounded())
      // Then the stress line passes there
      let nearLine = (column - 1...column + 1).contains { x in
        (row - 1...row + 1).contains { image[x, $0] == ReportStyle.stressLine }
      }
      #expect(nearLine, "no stress line near the \(category) level \(level) at x \(column), y \(row)")
      // And every band pixel on that row nearby is the category's pattern, ink or paper exactly where
      // `FillPattern.isInk` says
      let fill = ReportStyle.band(category)
      var bandPixels = 0
      for x in (column - 15)...(column + 15) {
        guard let colour = image[x, row], !Self.lineColours.contains(colour), colour != ReportStyle.grid else {
          continue
        }
        if colour == ReportStyle.noData.colour(x: x, y: row) || colour == ReportStyle.notScored.colour(x: x, y: row) {
          continue  // the edge of the session
        }
        #expect(colour == fill.colour(x: x, y: row), "x \(x) y \(row): \(colour.hexString)")
        bandPixels += 1
      }
      #expect(bandPixels >= 8)
    }
  }

  @Test("Across a gap and across unscored windows no chart has a line: only the hatching")
  func gapsHaveNoLine() throws {
    let records = try DayFixture.records()
    let report = DayReport(records: records, day: DayFixture.day)
    let image = report.raster()
    let time = report.geometry.time
    let gap = try #require(report.summary.gaps.first)
    // The no-contact windows of the evening session: slots from its first window end − 10 s to its last end
    let noContact = records.filter { $0.quality == .noContact }.map(\.windowEnd)
    let spans = [
      (gap.start, gap.end, ReportStyle.noData),
      (noContact.min()! - DayFixture.stepSeconds, noContact.max()!, ReportStyle.notScored),
    ]
    for (start, end, fill) in spans {
      // Columns fully inside the span, one column clear of the 2-px pen of the lines on either side
      let columns = (Int(time.x(start).rounded(.up)) + 1)...(Int(time.x(end).rounded(.down)) - 1)
      #expect(columns.count >= 1)
      for axis in [report.geometry.stress, report.geometry.hrv, report.geometry.heartRate] {
        for x in columns {
          for y in axis.rect.minY..<axis.rect.maxY where image[x, y] != ReportStyle.grid {
            #expect(image[x, y] == fill.colour(x: x, y: y), "x \(x) y \(y)")
          }
        }
      }
    }
  }

  @Test("Text is drawn with the bitmap font: the title's pixels are exactly the font's glyphs")
  func titleText() throws {
    let report = DayReport(records: try DayFixture.records(), day: DayFixture.day)
    let image = report.raster()
    #expect(report.drawing.title == "Stress on Tuesday 2024-03-12")
    var glyphs = Bitmap(width: BitmapFont.small.width(of: report.drawing.title, scale: 2), height: 20)
    BitmapFont.small.draw(report.drawing.title, into: &glyphs, x: 0, y: 0, scale: 2)
    let left = ReportGeometry.plotLeft
    let top = report.geometry.titleTop
    var ink = 0
    for y in 0..<glyphs.height {
      for x in 0..<glyphs.width {
        #expect((image[left + x, top + y] == ReportStyle.ink) == glyphs[x, y])
        if glyphs[x, y] { ink += 1 }
      }
    }
    #expect(ink > 300)
  }

  @Test("A day without windows is hatched as no data from midnight to midnight, and says so")
  func emptyDay() throws {
    let report = DayReport(records: [], day: DayFixture.day)
    let image = report.raster()
    let axis = report.geometry.hrv
    var hatched = 0
    for x in stride(from: axis.rect.minX, to: axis.rect.maxX, by: 7) {
      for y in axis.rect.minY..<axis.rect.maxY where image[x, y] != ReportStyle.grid {
        #expect(image[x, y] == ReportStyle.noData.colour(x: x, y: y))
        hatched += 1
      }
    }
    #expect(hatched > 10_000)
    let texts = report.drawing.items.compactMap { item -> String? in
      if case .text(let text, _, _, _, _, _) = item.shape { return text }
      return nil
    }
    #expect(texts.contains("No measurements on this day"))
  }

  @Test("Band fills keep the category's hue; every pattern shows as clearly, and the stress line stays on top")
  func bandTints() {
    for category in StressCategory.allCases {
      guard case .pattern(.category(let pattern), let ink, let paper) = ReportStyle.band(category) else {
        Issue.record("band of \(category) is not its pattern")
        continue
      }
      #expect(pattern == category.pattern)
      let colour = category.colour
      let channels = { (c: RGBColour) in [Double(c.red), Double(c.green), Double(c.blue)] }
      for fill in [ink, paper] {
        let (a, b) = (channels(colour), channels(fill))
        // Mixed with white, each channel's distance from 255 shrinks by one factor; mixed with black, each channel
        // shrinks by one factor: either way the hue is the category's.
        let towardsWhite = zip(a, b).filter { $0.0 < 200 }.map { (255 - $0.1) / (255 - $0.0) }
        let towardsBlack = zip(a, b).filter { $0.0 > 40 }.map { $0.1 / $0.0 }
        let keepsHue = [towardsWhite, towardsBlack].contains { factors in
          factors.count >= 1 && factors.max()! - factors.min()! < 0.02
        }
        #expect(keepsHue, "\(category) \(fill.hexString) is not a tint or a shade of \(colour.hexString)")
      }
      // The pattern's contrast with its paper is the same for every category (the light yellow and orange bands
      // were faint), and the near-black stress line reads on both (WCAG 1.4.11: 3:1 for graphics)
      let contrast = WCAGContrast.ratio(ink, paper)
      let target = ReportStyle.bandInkContrast
      #expect(contrast >= target && contrast < target + 0.4, "\(category) \(contrast)")
      #expect(WCAGContrast.ratio(ReportStyle.stressLine, ink) >= 3)
      #expect(WCAGContrast.ratio(ReportStyle.stressLine, paper) >= 3)
      #expect(WCAGContrast.luminance(ink) < WCAGContrast.luminance(paper))
    }
  }

  @Test("The PNG is an 8-bit truecolour file of the raster")
  func pngHeader() throws {
    let report = DayReport(records: try DayFixture.records(), day: DayFixture.day)
    let raster = report.raster()
    let png = report.png()
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    let header = Array(png[16..<26])
    let width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
    let height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
    #expect(width == raster.width && height == raster.height && header[8] == 8 && header[9] == 2)
    #expect(png == PNGEncoder.encodeRGB(width: raster.width, height: raster.height, rgb: raster.rgb))
    // Flat areas and repeated rows compress well even with fixed Huffman codes
    #expect(png.count * 20 < raster.rgb.count)
  }
}
