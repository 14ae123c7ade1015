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

  /// The bottom line: a rule, the status on the left, the measurement time on the right. Returns its top.
  private static func drawStatusBar(_ content: PanelContent, into image: inout Bitmap) -> Int {
    let font = BitmapFont.small
    let barHeight = font.lineHeight() + 3
    let top = image.height - barHeight
    image.fill(Rect(x: 0, y: top, width: image.width, height: 1))
    let textY = top + 3
    var right = image.width - margin
    if let time = content.measuredAt {
      let text = "at \(time)"
      right -= font.width(of: text)
      font.draw(text, into: &image, x: right, y: textY)
      right -= 2 * margin
    }
    let status = content.status.map(\.description).joined(separator: " · ")
    font.draw(font.truncated(status, toWidth: right - margin), into: &image, x: margin, y: textY)
    return top
  }
}
