import Indicators
import Raster
import StressModel
import Testing

/// The panel's status line with several items at once (issue 44: "No contact · Offline, 3 unsynced · Clo." on the
/// 2.13" panel). Checked on the rendered frame: each text the layout chose must be found, pixel for pixel, in the
/// status bar, so nothing is cut off or drawn over the time.
@Suite("The panel's status line fits on every panel")
struct PanelStatusLineTests {
  static let combinations: [[PanelStatus]] = [
    [.noContact, .offline(unsynced: 3), .clockUnsynchronised],
    [.error("cannot save data"), .diskFull(dropped: 12), .noContact, .offline(unsynced: 1_234), .clockUnsynchronised],
    [.learningBaseline(windows: 12, needed: 30), .offline(unsynced: 87), .clockUnsynchronised],
    [.error("sensor lost, retry in 60 s"), .error("panel"), .message("Uncategorised: poor signal"),
     .offline(unsynced: 4_320), .clockUnsynchronised, .diskFull(dropped: 99_999)],
    [.message("Measuring, first result soon")],
  ]

  @Test("every item is shown whole (or counted in +N), the time too, on every panel", arguments: EPaperModel.all)
  func statusFits(model: EPaperModel) throws {
    for items in Self.combinations {
      let content = PanelContent(
        category: .moderate, level: 62, hrvMs: 31, heartRateBpm: 84, measuredAt: ClockTime(hour: 9, minute: 5),
        status: items)
      let frame = PanelLayout.render(content, width: model.layoutWidth, height: model.layoutHeight).image
      let font = BitmapFont.small
      let time = "at 09:05"
      let timeWidth = font.width(of: time) + 8
      let lines = PanelLayout.statusLines(
        items, firstLineWidth: model.layoutWidth - 8 - timeWidth, otherLineWidth: model.layoutWidth - 8)
      #expect((1...2).contains(lines.count), "\(model.name): \(lines)")
      let bar = Rect(
        x: 0, y: model.layoutHeight - lines.count * font.lineHeight() - 3, width: model.layoutWidth,
        height: lines.count * font.lineHeight() + 3)
      // The texts the layout chose are in the frame, whole.
      for text in lines.filter({ !$0.isEmpty }) + [time] {
        #expect(Self.find(text, in: frame, within: bar), "\(model.name): '\(text)' is not drawn whole")
      }
      // And every item is one of those texts' parts, or counted by the trailing "+N".
      let parts = lines.flatMap { $0.split(separator: " \u{00B7} ").map(String.init) }
      let shown = items.filter { parts.contains($0.description) || parts.contains($0.shortDescription) }.count
      let counted = parts.last.flatMap { $0.hasPrefix("+") ? Int($0.dropFirst()) : nil } ?? 0
      #expect(shown + counted == items.count, "\(model.name): \(lines) for \(items)")
      #expect(shown >= 1)
    }
  }

  @Test("the case of issue 44 on the 2.13-inch panel: all three items are shown whole")
  func issueCase() {
    let model = EPaperModel.waveshare2in13V4
    let items: [PanelStatus] = [.noContact, .offline(unsynced: 3), .clockUnsynchronised]
    let lines = PanelLayout.statusLines(
      items, firstLineWidth: model.layoutWidth - 8 - BitmapFont.small.width(of: "at 09:05") - 8,
      otherLineWidth: model.layoutWidth - 8)
    #expect(lines == ["No contact \u{00B7} Offline 3 \u{00B7} No clock"])
  }

  /// Whether `text`, drawn in the small font, appears in `frame` inside `area` with exactly its pixels (its
  /// bounding box matched ink for ink and blank for blank).
  static func find(_ text: String, in frame: Bitmap, within area: Rect) -> Bool {
    let font = BitmapFont.small
    var stamp = Bitmap(width: font.width(of: text), height: font.lineHeight())
    font.draw(text, into: &stamp, x: 0, y: 0)
    guard stamp.width <= area.width else { return false }
    for y in area.minY...(area.maxY - stamp.height) {
      for x in area.minX...(area.maxX - stamp.width) {
        var same = true
        for sy in 0..<stamp.height where same {
          for sx in 0..<stamp.width where frame[x + sx, y + sy] != stamp[sx, sy] {
            same = false
            break
          }
        }
        if same { return true }
      }
    }
    return false
  }
}
