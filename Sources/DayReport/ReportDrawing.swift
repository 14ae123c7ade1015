import Raster
import StressModel

/// A picture as a list of shapes, in pixels, that two backends draw the same way: `SVGWriter` (text, vector,
/// accessible labels) and `RasterRenderer` (RGB pixels for a PNG). Shapes are painted in order.
public struct ReportDrawing: Sendable {
  public var width: Int
  public var height: Int
  /// What the picture is: the SVG `<title>`, and the first thing a screen reader says.
  public var title: String
  /// The summary in words: the SVG `<desc>`.
  public var description: String
  public var background: RGBColour
  public var groups: [ReportGroup]

  public init(
    width: Int, height: Int, title: String, description: String, background: RGBColour, groups: [ReportGroup]
  ) {
    self.width = width
    self.height = height
    self.title = title
    self.description = description
    self.background = background
    self.groups = groups
  }

  /// Every item of every group, in painting order.
  public var items: [ReportItem] { groups.flatMap(\.items) }
}

/// A named part of the picture (a chart, the legend): an SVG `<g>` with an `aria-label`.
public struct ReportGroup: Sendable {
  public var label: String
  public var items: [ReportItem]

  public init(label: String, items: [ReportItem] = []) {
    self.label = label
    self.items = items
  }

  public mutating func add(_ shape: ReportShape, label: String? = nil) {
    items.append(ReportItem(shape: shape, label: label))
  }
}

/// One shape, with what it means for a person who cannot see it (SVG `<title>` of the element).
public struct ReportItem: Sendable {
  public var shape: ReportShape
  public var label: String?
}

/// The drawing primitives. Rectangles and text sit on whole pixels so both backends agree to the pixel; line
/// points may fall between pixels (the raster rounds them).
public enum ReportShape: Sendable {
  case rect(Rect, fill: ReportFill)
  /// A 1-pixel outline inside `rect`.
  case frame(Rect, colour: RGBColour)
  /// A line through the points, `width` pixels wide. Lines are never drawn across a gap: a gap ends one.
  case polyline([ReportPoint], colour: RGBColour, width: Int)
  /// Text in the small bitmap font at `scale`, the top of its line at `y`.
  case text(String, x: Int, y: Int, scale: Int, colour: RGBColour, anchor: TextAnchor)
}

public struct ReportPoint: Sendable, Equatable {
  public var x: Double
  public var y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// Where `x` sits on a line of text.
public enum TextAnchor: String, Sendable {
  case start, middle, end
}

/// How a rectangle is filled: one colour, or a 1-bit pattern tiled from the image origin with an ink and a
/// paper colour (so it still reads in grey or to a colour-blind eye).
public enum ReportFill: Sendable, Hashable {
  case solid(RGBColour)
  case pattern(ReportPattern, ink: RGBColour, paper: RGBColour)

  /// The colour of image pixel (x, y) inside a rectangle of this fill.
  public func colour(x: Int, y: Int) -> RGBColour {
    switch self {
    case .solid(let colour): colour
    case .pattern(let pattern, let ink, let paper): pattern.isInk(x: x, y: y) ? ink : paper
    }
  }
}

/// The patterns of the report: each category's own `FillPattern`, and the report's hatching for time without a
/// score (lines falling to the right, the other way from the mild diagonal).
public enum ReportPattern: Sendable, Hashable {
  case category(FillPattern)
  /// 1-pixel lines falling to the right every `spacing` pixels.
  case hatch(spacing: Int)

  public func isInk(x: Int, y: Int) -> Bool {
    switch self {
    case .category(let pattern): pattern.isInk(x: x, y: y)
    case .hatch(let spacing): ((x - y) % spacing + spacing) % spacing == 0
    }
  }

  /// The smallest square tile that repeats the pattern, found from `isInk` itself so that no pattern geometry
  /// is restated here (the SVG backend emits one tile per pattern).
  public var period: Int {
    let probe = 24
    for candidate in 1...probe {
      var repeats = true
      for y in 0..<probe where repeats {
        for x in 0..<probe
        where isInk(x: x, y: y) != isInk(x: x + candidate, y: y) || isInk(x: x, y: y) != isInk(x: x, y: y + candidate) {
          repeats = false
          break
        }
      }
      if repeats { return candidate }
    }
    return probe
  }
}
