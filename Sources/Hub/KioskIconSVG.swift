import StressModel

/// The category image of the kiosk page as inline SVG, generated from `StressCategory`: its icon shape, filled
/// with an SVG pattern tiled from `FillPattern.isInk` itself (no second description of the patterns), ink
/// drawn in the text colour on the category colour.
public enum KioskIconSVG {
  /// SVG user units per pattern pixel: the icon spans 100 units and is drawn ~40 % of the screen height, so one
  /// pattern pixel is 3-8 screen pixels: as coarse as the e-ink panel's patterns look at arm's length.
  public static let unitsPerPixel = 2

  /// The SVG element. `titleId` links the accessible name (the category's `accessibilityText`); `idPrefix` keeps
  /// the ids unique when a page holds several images (the fleet page).
  public static func svg(for category: StressCategory, ink: RGBColour, idPrefix: String = "") -> String {
    let patternId = "\(idPrefix)fill-\(category.pattern.rawValue)"
    let titleId = "\(idPrefix)category-image-title"
    let inkHex = ink.hexString
    return """
      <svg class="icon" role="img" aria-labelledby="\(titleId)" viewBox="0 0 100 100" \
      xmlns="http://www.w3.org/2000/svg" data-icon="\(category.icon.rawValue)" data-pattern="\(category.pattern.rawValue)">\
      <title id="\(titleId)">\(HTML.escape(category.accessibilityText))</title>\
      <defs>\(patternElement(category.pattern, id: patternId, ink: inkHex))</defs>\
      \(shape(category.icon, fill: "url(#\(patternId))", stroke: inkHex))</svg>
      """
  }

  /// The smallest period (pattern pixels) after which `pattern` repeats in x and y, found from `isInk` itself.
  public static func period(of pattern: FillPattern) -> Int {
    let probe = 48
    for candidate in 1...24 {
      var repeats = true
      for y in 0..<probe where repeats {
        for x in 0..<probe where pattern.isInk(x: x, y: y) != pattern.isInk(x: x + candidate, y: y)
          || pattern.isInk(x: x, y: y) != pattern.isInk(x: x, y: y + candidate)
        {
          repeats = false
          break
        }
      }
      if repeats { return candidate }
    }
    return probe
  }

  /// One tile of the pattern: a rectangle per horizontal run of ink pixels.
  public static func patternElement(_ pattern: FillPattern, id: String, ink: String) -> String {
    let size = period(of: pattern)
    let scale = unitsPerPixel
    var rects = ""
    for y in 0..<size {
      var x = 0
      while x < size {
        guard pattern.isInk(x: x, y: y) else {
          x += 1
          continue
        }
        let start = x
        while x < size && pattern.isInk(x: x, y: y) { x += 1 }
        rects += "<rect x=\"\(start * scale)\" y=\"\(y * scale)\" width=\"\((x - start) * scale)\" height=\"\(scale)\"/>"
      }
    }
    return "<pattern id=\"\(id)\" width=\"\(size * scale)\" height=\"\(size * scale)\" patternUnits=\"userSpaceOnUse\" "
      + "fill=\"\(ink)\">\(rects)</pattern>"
  }

  /// The icon outline in a 100×100 box, with a margin for the stroke.
  static func shape(_ icon: CategoryIcon, fill: String, stroke: String) -> String {
    let style = "fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"4\" stroke-linejoin=\"round\""
    switch icon {
    case .circle:
      return "<circle cx=\"50\" cy=\"50\" r=\"44\" \(style)/>"
    case .square:
      return "<rect x=\"8\" y=\"8\" width=\"84\" height=\"84\" \(style)/>"
    case .triangle:
      return "<path d=\"M50 6 L95 92 L5 92 Z\" \(style)/>"
    case .leaf:
      return "<path d=\"M50 4 C86 22 92 64 50 96 C8 64 14 22 50 4 Z\" \(style)/>"
        + "<path d=\"M50 18 L50 96\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"4\"/>"
    }
  }
}

/// Minimal HTML escaping for text and attribute values.
enum HTML {
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.count)
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.append(character)
      }
    }
    return result
  }
}
