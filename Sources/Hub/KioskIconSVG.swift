import StressModel

/// The category image of the hub's pages as inline SVG, generated from `StressCategory`: its icon's shape from
/// `IconGeometry` (the same shapes the e-ink panel draws), filled with an SVG pattern tiled from
/// `FillPattern.isInk` itself (no second description of the patterns), outlined inside the shape as on the
/// panel, ink drawn in the text colour on the category colour (or on grey when the data is stale).
public enum KioskIconSVG {
  /// SVG user units per pattern pixel: the icon spans 100 units and is drawn ~40 % of the screen height, so one
  /// pattern pixel is 3-8 screen pixels: as coarse as the e-ink panel's patterns look at arm's length.
  public static let unitsPerPixel = 2
  /// The icon's box in user units.
  static let side = 100.0

  /// The SVG element. `titleId` links the accessible name (the category's `accessibilityText`); `idPrefix` keeps
  /// the ids unique when a page holds several images (the fleet page). `paper` is the colour behind the icon: the
  /// panel's one-pixel gap between outline and pattern is drawn in it.
  public static func svg(
    for category: StressCategory, ink: RGBColour, paper: RGBColour? = nil, idPrefix: String = "",
    label: String? = nil
  ) -> String {
    let patternId = "\(idPrefix)fill-\(category.pattern.rawValue)"
    let clipId = "\(idPrefix)clip-\(category.icon.rawValue)"
    let titleId = "\(idPrefix)category-image-title"
    let inkHex = ink.hexString
    let outline = side / Double(IconGeometry.outlineDivisor)
    let outlinePath = path(category.icon)
    var strokes = ""
    if let paper {
      let gap = outline + Double(unitsPerPixel)
      strokes += "<path d=\"\(outlinePath)\" fill=\"none\" stroke=\"\(paper.hexString)\" "
        + "stroke-width=\"\(number(2 * gap))\" clip-path=\"url(#\(clipId))\"/>"
    }
    strokes += "<path d=\"\(outlinePath)\" fill=\"none\" stroke=\"\(inkHex)\" stroke-width=\"\(number(2 * outline))\" "
      + "stroke-linejoin=\"round\" clip-path=\"url(#\(clipId))\"/>"
    if category.icon == .leaf {
      let low = IconGeometry.leafTipLow, end = IconGeometry.leafStemEnd
      strokes += "<path d=\"M\(number(low.x * side)) \(number(low.y * side)) L\(number(end.x * side)) "
        + "\(number(end.y * side))\" fill=\"none\" stroke=\"\(inkHex)\" stroke-width=\"\(number(outline))\"/>"
    }
    return """
      <svg class="icon" role="img" aria-labelledby="\(titleId)" viewBox="0 0 100 100" \
      xmlns="http://www.w3.org/2000/svg" data-icon="\(category.icon.rawValue)" data-pattern="\(category.pattern.rawValue)">\
      <title id="\(titleId)">\(HTML.escape(label ?? category.accessibilityText))</title>\
      <defs>\(patternElement(category.pattern, id: patternId, ink: inkHex))\
      <clipPath id="\(clipId)"><path d="\(outlinePath)"/></clipPath></defs>\
      <path d="\(outlinePath)" fill="url(#\(patternId))"/>\(strokes)</svg>
      """
  }

  /// The icon's outline as SVG path data in the 100-unit box, from `IconGeometry`.
  public static func path(_ icon: CategoryIcon) -> String {
    switch icon {
    case .circle:
      let r = IconGeometry.circleRadius * side
      return "M\(number(50 - r)) 50 A\(number(r)) \(number(r)) 0 1 0 \(number(50 + r)) 50 "
        + "A\(number(r)) \(number(r)) 0 1 0 \(number(50 - r)) 50 Z"
    case .square:
      let low = (0.5 - IconGeometry.squareSide / 2) * side, high = (0.5 + IconGeometry.squareSide / 2) * side
      return "M\(number(low)) \(number(low)) H\(number(high)) V\(number(high)) H\(number(low)) Z"
    case .triangle:
      let top = IconGeometry.triangleTop * side, bottom = IconGeometry.triangleBottom * side
      let half = IconGeometry.triangleHalfBase * side
      return "M50 \(number(top)) L\(number(50 + half)) \(number(bottom)) L\(number(50 - half)) \(number(bottom)) Z"
    case .leaf:
      let lens = IconGeometry.leafLens(size: side)
      let r = number(lens.radius)
      let (a, b) = (lens.tipLow, lens.tipHigh)
      return "M\(number(a.x)) \(number(a.y)) A\(r) \(r) 0 0 1 \(number(b.x)) \(number(b.y)) "
        + "A\(r) \(r) 0 0 1 \(number(a.x)) \(number(a.y)) Z"
    }
  }

  /// A coordinate with at most three decimals, without trailing zeros.
  static func number(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    if scaled == scaled.rounded() { return String(Int(scaled)) }
    var text = String(scaled)
    while text.hasSuffix("0") { text.removeLast() }
    return text
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

  /// One tile of the pattern: a rectangle per horizontal run of ink pixels, `scale` user units per pattern pixel,
  /// on `paper` when given (else transparent).
  public static func patternElement(
    _ pattern: FillPattern, id: String, ink: String, paper: String? = nil, scale: Int = unitsPerPixel
  ) -> String {
    let size = period(of: pattern)
    var rects = paper.map { "<rect width=\"\(size * scale)\" height=\"\(size * scale)\" fill=\"\($0)\"/>" } ?? ""
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
