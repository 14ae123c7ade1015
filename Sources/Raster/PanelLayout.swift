import StressModel

/// A rendered panel frame and where its parts are (tests look inside the icon's frame).
public struct RenderedPanel: Sendable, Hashable {
  public var image: Bitmap
  /// Where the category icon was drawn.
  public var iconFrame: Rect
}

/// Lays out `PanelContent` on a 1-bit frame: the category icon with its fill pattern, the category name, the
/// stress level in large digits, HRV and HR, the time of the measurement and a status line. Two arrangements
/// cover the supported panels: landscape (250×122, 296×128: icon left, text right) and square (200×200: icon and
/// level on top, figures below). Everything the category looks like comes from StressModel's table.
public enum PanelLayout {
  // MARK: - Spacing (pixels)

  static let margin = 4
  static let columnGap = 8
  static let lineGap = 3

  // MARK: - Public

  /// The frame for a panel `width`×`height` pixels in reading orientation.
  public static func render(_ content: PanelContent, width: Int, height: Int) -> RenderedPanel {
    var image = Bitmap(width: width, height: height)
    let statusTop = drawStatusBar(content, into: &image)
    let icon: Rect
    if width >= height + height / 2 {
      icon = landscape(content, into: &image, contentBottom: statusTop)
    } else {
      icon = square(content, into: &image, contentBottom: statusTop)
    }
    return RenderedPanel(image: image, iconFrame: icon)
  }

  // MARK: - Arrangements

  private static func landscape(_ content: PanelContent, into image: inout Bitmap, contentBottom: Int) -> Rect {
    let available = contentBottom - 2 * margin
    let iconSize = min(available, image.width * 3 / 8)
    let icon = Rect(x: margin, y: margin + (available - iconSize) / 2, width: iconSize, height: iconSize)
    drawIcon(content.category, in: icon, into: &image)
    let left = icon.maxX + columnGap
    let columnWidth = image.width - left - margin
    let small = BitmapFont.small
    let lines = figureLines(content)
    // The text block (name, level, figures) is centred on the icon.
    let blockHeight = nameHeight(scale: 2) + 2 * lineGap + levelHeight(scale: 2) + 2 * lineGap
      + lines.count * small.lineHeight() + (lines.count - 1) * lineGap
    var y = max(margin, icon.y + (icon.height - blockHeight) / 2)
    y = drawName(content, into: &image, x: left, y: y, width: columnWidth, scale: 2)
    y = drawLevel(content, into: &image, x: left, y: y + 2 * lineGap, levelScale: 2) + 2 * lineGap
    for line in lines {
      small.draw(small.truncated(line, toWidth: columnWidth), into: &image, x: left, y: y)
      y += small.lineHeight() + lineGap
    }
    return icon
  }

  private static func square(_ content: PanelContent, into image: inout Bitmap, contentBottom: Int) -> Rect {
    // 11/25 of the side leaves the column beside the icon wide enough for "Moderate" at 2×.
    let iconSize = image.width * 11 / 25
    let icon = Rect(x: margin, y: margin, width: iconSize, height: iconSize)
    drawIcon(content.category, in: icon, into: &image)
    let left = icon.maxX + columnGap
    let columnWidth = image.width - left - margin
    let blockHeight = nameHeight(scale: 2) + 2 * lineGap + levelHeight(scale: 2)
    var y = icon.y + (icon.height - blockHeight) / 2
    y = drawName(content, into: &image, x: left, y: y, width: columnWidth, scale: 2)
    _ = drawLevel(content, into: &image, x: left, y: y + 2 * lineGap, levelScale: 2)
    // The figures, 2× when they fit, centred in the space between the icon and the status bar.
    let small = BitmapFont.small
    let lines = figureLines(content)
    let scale = lines.allSatisfy { small.width(of: $0, scale: 2) <= image.width - 2 * margin } ? 2 : 1
    let linesHeight = lines.count * small.lineHeight(scale: scale) + (lines.count - 1) * lineGap
    y = icon.maxY + max(lineGap, (contentBottom - icon.maxY - linesHeight) / 2)
    for line in lines where y + small.lineHeight(scale: scale) <= contentBottom {
      small.draw(line, into: &image, x: margin, y: y, scale: scale)
      y += small.lineHeight(scale: scale) + lineGap
    }
    return icon
  }

  // MARK: - Parts

  /// The icon scaled to the frame, or a dashed frame with "?" before the first result.
  private static func drawIcon(_ category: StressCategory?, in frame: Rect, into image: inout Bitmap) {
    guard let category else {
      for step in stride(from: 0, to: frame.width, by: 8) {
        image.fill(Rect(x: frame.x + step, y: frame.y, width: 4, height: 2))
        image.fill(Rect(x: frame.x + step, y: frame.maxY - 2, width: 4, height: 2))
        image.fill(Rect(x: frame.x, y: frame.y + step, width: 2, height: 4))
        image.fill(Rect(x: frame.maxX - 2, y: frame.y + step, width: 2, height: 4))
      }
      let font = BitmapFont.small
      let scale = max(1, frame.width / 24)
      font.draw("?", into: &image, x: frame.x + (frame.width - font.width(of: "?", scale: scale)) / 2,
                y: frame.y + (frame.height - font.ascent * scale) / 2, scale: scale)
      return
    }
    image.draw(IconRenderer.render(category.icon, pattern: category.pattern, size: frame.width), atX: frame.x, y: frame.y)
  }

  private static func nameHeight(scale: Int) -> Int { (BitmapFont.small.ascent + 1) * scale }
  private static func levelHeight(scale: Int) -> Int { BitmapFont.large.ascent * scale }

  private static func drawName(
    _ content: PanelContent, into image: inout Bitmap, x: Int, y: Int, width: Int, scale: Int
  ) -> Int {
    let font = BitmapFont.small
    let name = content.category?.displayName ?? "No reading"
    let fitted = font.width(of: name, scale: scale) <= width ? scale : 1
    font.draw(font.truncated(name, toWidth: width, scale: fitted), into: &image, x: x, y: y, scale: fitted)
    return y + nameHeight(scale: fitted)
  }

  /// "62" in large digits with a small "/100" on its baseline.
  private static func drawLevel(_ content: PanelContent, into image: inout Bitmap, x: Int, y: Int, levelScale: Int) -> Int {
    let large = BitmapFont.large
    let small = BitmapFont.small
    let digits = content.level.map { String(Int(StressLevel.clamp($0).rounded())) } ?? "--"
    let end = large.draw(digits, into: &image, x: x, y: y, scale: levelScale)
    let baseline = y + large.ascent * levelScale
    small.draw("/100", into: &image, x: end + 3, y: baseline - small.ascent)
    return baseline
  }

  /// "HRV 38 ms", "HR 84 bpm": the measured figures ("--" when unknown).
  private static func figureLines(_ content: PanelContent) -> [String] {
    [
      "HRV " + (content.hrvMs.map { $0.formatted(decimals: 0) + " ms" } ?? "--"),
      "HR " + (content.heartRateBpm.map { $0.formatted(decimals: 0) + " bpm" } ?? "--"),
    ]
  }

  /// The status bar: a rule, the status on the left, the measurement time on the right of its first line, and a
  /// second line when one is not enough (`statusLines`). Returns its top.
  private static func drawStatusBar(_ content: PanelContent, into image: inout Bitmap) -> Int {
    let font = BitmapFont.small
    let timeText = content.measuredAt.map { "at \($0)" }
    let timeWidth = timeText.map { font.width(of: $0) + 2 * margin } ?? 0
    let fullWidth = image.width - 2 * margin
    let lines = statusLines(content.status, firstLineWidth: fullWidth - timeWidth, otherLineWidth: fullWidth)
    let barHeight = max(1, lines.count) * font.lineHeight() + 3
    let top = image.height - barHeight
    image.fill(Rect(x: 0, y: top, width: image.width, height: 1))
    if let timeText {
      font.draw(timeText, into: &image, x: image.width - margin - font.width(of: timeText), y: top + 3)
    }
    for (index, line) in lines.enumerated() where !line.isEmpty {
      font.draw(line, into: &image, x: margin, y: top + 3 + index * font.lineHeight())
    }
    return top
  }

  /// The status items as at most two lines that fit, most important first: every item as it is written, on one
  /// line; else in its short form; else over two lines, written out, then short; else the short forms that fit,
  /// with "+N" for the items left out (the least important, the end of the list).
  public static func statusLines(_ items: [PanelStatus], firstLineWidth: Int, otherLineWidth: Int) -> [String] {
    guard !items.isEmpty else { return [] }
    let font = BitmapFont.small
    let widths = [firstLineWidth, otherLineWidth]
    let full = items.map(\.description)
    let short = items.map(\.shortDescription)
    for texts in [full, short] {
      let line = texts.joined(separator: separator)
      if font.width(of: line) <= firstLineWidth { return [line] }
    }
    for texts in [full, short] {
      if let lines = pack(texts, into: widths) { return lines }
    }
    for kept in stride(from: short.count - 1, through: 1, by: -1) {
      let more = "+\(short.count - kept)"
      if let lines = pack(Array(short.prefix(kept)) + [more], into: widths) { return lines }
    }
    // One item too long for a whole line: cut, on the line below the time.
    return ["", font.truncated(short[0], toWidth: otherLineWidth)]
  }

  private static let separator = " \u{00B7} "

  /// `texts` in order over lines of these widths, as many per line as fit (the first line, beside the time, may stay
  /// empty when the first text only fits a whole line); nil when they do not all fit.
  private static func pack(_ texts: [String], into widths: [Int]) -> [String]? {
    let font = BitmapFont.small
    var lines: [String] = []
    var current = ""
    for text in texts {
      let candidate = current.isEmpty ? text : current + separator + text
      if font.width(of: candidate) <= widths[lines.count] {
        current = candidate
        continue
      }
      guard lines.count + 1 < widths.count, font.width(of: text) <= widths[lines.count + 1] else { return nil }
      lines.append(current)
      current = text
    }
    lines.append(current)
    return lines
  }
}
