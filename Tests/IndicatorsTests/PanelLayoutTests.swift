import Indicators
import Raster
import StressModel
import Testing

@Suite("Panel pictures read without colour")
struct PanelLayoutTests {
  static func content(_ category: StressCategory) -> PanelContent {
    PanelContent(category: category, level: category.levelRange.lower + 10, hrvMs: 42, heartRateBpm: 71,
                 measuredAt: ClockTime(hour: 9, minute: 41), status: [.offline(unsynced: 3)])
  }

  @Test("On every panel the four categories differ inside the icon by their fill pattern alone", arguments: EPaperModel.all)
  func patternsDifferInsideTheIcon(model: EPaperModel) throws {
    // Given the four categories rendered for this panel, all with their icon in the same frame
    let renders = StressCategory.allCases.map {
      PanelLayout.render(Self.content($0), width: model.layoutWidth, height: model.layoutHeight)
    }
    let frame = try #require(renders.first?.iconFrame)
    #expect(renders.allSatisfy { $0.iconFrame == frame })
    // And the pixels that every icon fills with its pattern (the shapes, outlines and gaps are left out)
    let masks = StressCategory.allCases.map { IconRenderer.interiorMask($0.icon, size: frame.width) }
    var common: [(Int, Int)] = []
    for y in 0..<frame.height {
      for x in 0..<frame.width where masks.allSatisfy({ $0[x, y] }) { common.append((x, y)) }
    }
    #expect(common.count > frame.width * frame.height / 8, "the shared area is large enough to judge")
    // When the panels' pixels there are compared pair by pair
    let patches = renders.map { render in common.map { render.image[frame.x + $0.0, frame.y + $0.1] } }
    for i in 0..<4 {
      for j in (i + 1)..<4 {
        let differing = zip(patches[i], patches[j]).filter { $0 != $1 }.count
        // Then every pair differs in a fifth or more of them: the patterns alone tell them apart
        let pair = "\(StressCategory.allCases[i]) vs \(StressCategory.allCases[j])"
        #expect(Double(differing) / Double(common.count) > 0.2,
                "\(model.name): \(pair) differ in \(differing) of \(common.count)")
      }
    }
    // And the ink inside is each pattern's own density, in the table's order solid > crosshatch > diagonal, dots
    let density = patches.map { Double($0.filter { $0 }.count) / Double(common.count) }
    #expect(density[0] == 1)
    #expect(density[3] > density[1] && density[3] > density[2])
  }

  @Test("The icon pixels are the category table's pattern, tiled from the icon's corner", arguments: StressCategory.allCases)
  func iconUsesTheTablePattern(category: StressCategory) {
    let size = 90
    let icon = IconRenderer.render(category.icon, pattern: category.pattern, size: size)
    let interior = IconRenderer.interiorMask(category.icon, size: size)
    var checked = 0
    for y in 0..<size {
      for x in 0..<size where interior[x, y] {
        #expect(icon[x, y] == category.pattern.isInk(x: x, y: y))
        checked += 1
      }
    }
    #expect(checked > size * size / 4)
  }

  @Test("Every icon has a solid outline: each shape pixel next to the outside is ink, at any size",
        arguments: [24, 61, 96, 150])
  func outlines(size: Int) {
    for icon in CategoryIcon.allCases {
      let shape = IconRenderer.shapeMask(icon, size: size)
      let image = IconRenderer.render(icon, pattern: .dots, size: size)
      var edge = 0
      for y in 0..<size {
        for x in 0..<size where shape[x, y] {
          let outside = [(1, 0), (-1, 0), (0, 1), (0, -1)].contains { !shape[x + $0.0, y + $0.1] }
          if outside {
            #expect(image[x, y], "\(icon) at \(size): edge pixel (\(x), \(y)) is paper")
            edge += 1
          }
        }
      }
      #expect(edge > size, "\(icon) has an edge")
    }
  }

  @Test("The four shapes differ from each other too (icon is a second non-colour code)")
  func shapesDiffer() {
    let shapes = CategoryIcon.allCases.map { IconRenderer.shapeMask($0, size: 80) }
    #expect(Set(shapes).count == 4)
  }

  @Test("Name, level, figures, time and status are all drawn, and change the picture when they change",
        arguments: EPaperModel.all)
  func textParts(model: EPaperModel) {
    let base = Self.content(.moderate)
    func render(_ content: PanelContent) -> Bitmap {
      PanelLayout.render(content, width: model.layoutWidth, height: model.layoutHeight).image
    }
    let reference = render(base)
    var variants: [PanelContent] = []
    var changed = base
    changed.level = 70; variants.append(changed)
    changed = base; changed.hrvMs = 29; variants.append(changed)
    changed = base; changed.heartRateBpm = 99; variants.append(changed)
    changed = base; changed.measuredAt = ClockTime(hour: 23, minute: 5); variants.append(changed)
    changed = base; changed.status = [.noContact]; variants.append(changed)
    changed = base; changed.status = [.learningBaseline(windows: 12, needed: 30)]; variants.append(changed)
    for variant in variants {
      #expect(render(variant) != reference, "\(variant)")
    }
    // Nothing is drawn outside the panel's bounds and the frame has the panel's size
    #expect(reference.width == model.layoutWidth && reference.height == model.layoutHeight)
  }

  @Test("Before the first result the panel shows a dashed frame and no category")
  func noReading() {
    let picture = PanelLayout.render(PanelContent(category: nil, status: [.noContact]), width: 250, height: 122)
    for category in StressCategory.allCases {
      let icon = IconRenderer.render(category.icon, pattern: category.pattern, size: picture.iconFrame.width)
      #expect(picture.image.cropped(to: picture.iconFrame) != icon)
    }
    #expect(picture.image.inkCount(in: picture.iconFrame) > 0)
  }
}

@Suite("Bitmap font")
struct BitmapFontTests {
  @Test("The small font covers every character the layouts and category names use")
  func coverage() {
    let texts = StressCategory.allCases.map(\.displayName)
      + ["No reading", "HRV 42 ms", "HR 71 bpm", "/100", "at 09:41", "--"]
      + [PanelStatus.noContact, .learningBaseline(windows: 12, needed: 30), .offline(unsynced: 3),
         .clockUnsynchronised, .error("sensor missing")].map(\.description)
    for text in texts {
      for character in text { #expect(BitmapFont.small.covers(character), "'\(character)' in \(text)") }
    }
    for digit in "0123456789-" { #expect(BitmapFont.large.covers(digit)) }
  }

  @Test("Letters and digits are distinct glyphs (no two share a bitmap)")
  func glyphsDistinct() {
    let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    let drawn = characters.map { character -> Bitmap in
      var image = Bitmap(width: 8, height: 10)
      BitmapFont.small.draw(String(character), into: &image, x: 0, y: 0)
      return image
    }
    #expect(Set(drawn).count == characters.count)
  }

  @Test("Widths add up: glyphs plus one column between them, times the scale")
  func widths() {
    let font = BitmapFont.small
    #expect(font.width(of: "i") < font.width(of: "m"))
    #expect(font.width(of: "HR", scale: 2) == 2 * (font.width(of: "H") + 1 + font.width(of: "R")))
    var image = Bitmap(width: 100, height: 20)
    let end = font.draw("HRV 42", into: &image, x: 3, y: 2)
    #expect(end == 3 + font.width(of: "HRV 42"))
    #expect(font.truncated("Learning baseline 12/30", toWidth: 60).count < 23)
    #expect(font.width(of: font.truncated("Learning baseline 12/30", toWidth: 60)) <= 60)
  }
}
