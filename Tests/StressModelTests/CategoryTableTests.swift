import StressModel
import Testing

@Suite("The category table codes every category without colour")
struct CategoryTableTests {
  @Test("Icons, fill patterns, blink patterns, colours and names are each distinct across categories")
  func everyCodeIsUnique() {
    let all = StressCategory.allCases
    #expect(Set(all.map(\.icon)).count == 4)
    #expect(Set(all.map(\.pattern)).count == 4)
    #expect(Set(all.map(\.blink)).count == 4)
    #expect(Set(all.map(\.colour)).count == 4)
    #expect(Set(all.map(\.displayName)).count == 4)
    #expect(Set(all.map(\.accessibilityText)).count == 4)
  }

  @Test("DESIGN.md's table: leaf/solid/steady, circle/diagonal/slow, triangle/dots/double, square/crosshatch/fast")
  func designTable() {
    #expect(StressCategory.relaxed.icon == .leaf && StressCategory.relaxed.pattern == .solid)
    #expect(StressCategory.mild.icon == .circle && StressCategory.mild.pattern == .diagonal)
    #expect(StressCategory.moderate.icon == .triangle && StressCategory.moderate.pattern == .dots)
    #expect(StressCategory.high.icon == .square && StressCategory.high.pattern == .crosshatch)
    #expect(StressCategory.mild.blink.segments.map(\.milliseconds) == [1000, 1000])
    #expect(StressCategory.high.blink.periodMilliseconds == 250)  // 4 Hz
  }

  @Test("Blink patterns differ in their on/off timeline sampled every 25 ms over 2 s")
  func blinkTimelinesDiffer() {
    func timeline(_ pattern: BlinkPattern) -> [Bool] { stride(from: 0, to: 2000, by: 25).map { pattern.isOn(atMilliseconds: $0) } }
    let timelines = BlinkPattern.allCases.map(timeline)
    #expect(Set(timelines).count == BlinkPattern.allCases.count)
    #expect(timeline(.steady).allSatisfy { $0 })
    #expect(timeline(.double).filter { $0 }.count == 12)  // two 150 ms flashes
  }

  @Test("Fill patterns differ pixel by pixel on a 30×30 tile and cover different shares of ink")
  func fillPatternsDiffer() {
    func tile(_ pattern: FillPattern) -> [Bool] { (0..<900).map { pattern.isInk(x: $0 % 30, y: $0 / 30) } }
    let tiles = FillPattern.allCases.map(tile)
    #expect(Set(tiles).count == 4)
    #expect(tile(.solid).allSatisfy { $0 })
    let coverage = tiles.map { Double($0.filter { $0 }.count) / 900 }
    #expect(Set(coverage).count == 4)
  }

  @Test("Colours are written as #RRGGBB")
  func hex() {
    #expect(StressCategory.relaxed.colour.hexString == "#34C759")
    #expect(RGBColour(hex: 0x0A0B0C).hexString == "#0A0B0C")
  }
}
