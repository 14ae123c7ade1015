import StressModel

/// Writes a `ReportDrawing` as an SVG 1.1 document: `role="img"` with `<title>` and `<desc>` for screen readers,
/// one `<g aria-label>` per group, a `<title>` inside every labelled shape (shown as a tooltip), and one
/// `<pattern>` tile per fill pattern, built from the same `isInk` the raster uses.
public enum SVGWriter {
  /// Font size (px) per unit of text scale: the bitmap font's 7-pixel capitals are about 0.7 em of a sans font.
  static let fontSizePerScale = 10

  public static func write(_ drawing: ReportDrawing) -> String {
    let patterns = uniquePatterns(in: drawing)
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(drawing.width)" height="\(drawing.height)" \
      viewBox="0 0 \(drawing.width) \(drawing.height)" role="img" aria-labelledby="report-title report-desc" \
      shape-rendering="crispEdges" font-family="DejaVu Sans, Verdana, Arial, sans-serif">
      <title id="report-title">\(escape(drawing.title))</title>
      <desc id="report-desc">\(escape(drawing.description))</desc>

      """
    out += "<defs>\n"
    for (index, fill) in patterns.enumerated() { out += patternDefinition(fill, id: patternID(index)) }
    out += "</defs>\n"
    out += "<rect width=\"100%\" height=\"100%\" fill=\"\(drawing.background.hexString)\"/>\n"
    for group in drawing.groups {
      out += "<g role=\"group\" aria-label=\"\(escape(group.label))\">\n"
      for item in group.items { out += element(item, patterns: patterns) + "\n" }
      out += "</g>\n"
    }
    out += "</svg>\n"
    return out
  }

  // MARK: - Private

  private static func element(_ item: ReportItem, patterns: [ReportFill]) -> String {
    let title = item.label.map { "<title>\(escape($0))</title>" } ?? ""
    func close(_ open: String) -> String { title.isEmpty ? open + "/>" : open + ">" + title }
    switch item.shape {
    case .rect(let rect, let fill):
      let paint: String
      switch fill {
      case .solid(let colour): paint = colour.hexString
      case .pattern: paint = "url(#\(patternID(patterns.firstIndex(of: fill) ?? 0)))"
      }
      let open = "<rect x=\"\(rect.x)\" y=\"\(rect.y)\" width=\"\(rect.width)\" height=\"\(rect.height)\" "
        + "fill=\"\(paint)\""
      return close(open) + (title.isEmpty ? "" : "</rect>")
    case .frame(let rect, let colour):
      // The outline sits inside the rectangle, as in the raster: a 1-px stroke centred half a pixel in.
      let open = "<rect x=\"\(Double(rect.x) + 0.5)\" y=\"\(Double(rect.y) + 0.5)\" width=\"\(rect.width - 1)\" "
        + "height=\"\(rect.height - 1)\" fill=\"none\" stroke=\"\(colour.hexString)\" stroke-width=\"1\""
      return close(open) + (title.isEmpty ? "" : "</rect>")
    case .polyline(let points, let colour, let width):
      let coordinates = points.map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
      let open = "<polyline points=\"\(coordinates)\" fill=\"none\" stroke=\"\(colour.hexString)\" "
        + "stroke-width=\"\(width)\" stroke-linejoin=\"round\" stroke-linecap=\"round\" shape-rendering=\"auto\""
      return close(open) + (title.isEmpty ? "" : "</polyline>")
    case .text(let text, let x, let y, let scale, let colour, let anchor):
      let baseline = y + RasterRenderer.font.ascent * scale
      return "<text x=\"\(x)\" y=\"\(baseline)\" font-size=\"\(fontSizePerScale * scale)\" "
        + "fill=\"\(colour.hexString)\" text-anchor=\"\(anchor.rawValue)\">\(escape(text))\(title)</text>"
    }
  }

  private static func uniquePatterns(in drawing: ReportDrawing) -> [ReportFill] {
    var fills: [ReportFill] = []
    for item in drawing.items {
      if case .rect(_, let fill) = item.shape, case .pattern = fill, !fills.contains(fill) { fills.append(fill) }
    }
    return fills
  }

  private static func patternID(_ index: Int) -> String { "fill\(index)" }

  /// One tile of the pattern: paper, then the ink pixels as horizontal runs.
  private static func patternDefinition(_ fill: ReportFill, id: String) -> String {
    guard case .pattern(let pattern, let ink, let paper) = fill else { return "" }
    let size = pattern.period
    var path = ""
    for y in 0..<size {
      var x = 0
      while x < size {
        guard pattern.isInk(x: x, y: y) else { x += 1; continue }
        var run = 1
        while x + run < size && pattern.isInk(x: x + run, y: y) { run += 1 }
        path += "M\(x) \(y)h\(run)v1h-\(run)z"
        x += run
      }
    }
    return "<pattern id=\"\(id)\" width=\"\(size)\" height=\"\(size)\" patternUnits=\"userSpaceOnUse\">"
      + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"\(paper.hexString)\"/>"
      + (path.isEmpty ? "" : "<path d=\"\(path)\" fill=\"\(ink.hexString)\"/>") + "</pattern>\n"
  }

  /// A coordinate with at most one decimal ("12", "12.5").
  private static func number(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : value.formatted(decimals: 1)
  }

  /// XML text and attribute escaping.
  static func escape(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(character)
      }
    }
    return out
  }
}
