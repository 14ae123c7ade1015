/// The shapes of the category icons on a unit square (x to the right, y down, 0...1), the one definition every
/// renderer draws from: the e-ink panel and the PNGs (Raster's `IconRenderer`, sampled at pixel centres) and the
/// hub's pages (SVG paths in a 100-unit box). A shape drawn anywhere is the same shape.
public enum IconGeometry {
  // MARK: - Shapes (fractions of the icon's side)

  /// Circle radius: nearly the full box.
  public static let circleRadius = 0.47
  /// Square side: smaller than the box so the square does not look heavier than the circle.
  public static let squareSide = 0.82
  /// Triangle (equilateral, pointing up): apex and base heights.
  public static let triangleTop = 0.06
  public static let triangleBottom = 0.90
  /// Leaf: a lens between two tips on the rising diagonal, this wide relative to its length, plus a stem from the
  /// lower tip to `leafStemEnd`.
  public static let leafTipLow = (x: 0.24, y: 0.76)
  public static let leafTipHigh = (x: 0.95, y: 0.05)
  public static let leafWidthRatio = 0.55
  public static let leafStemEnd = (x: 0.05, y: 0.95)
  /// The outline, drawn inside the shape, is 1/this of the side (at least 2 px on a panel).
  public static let outlineDivisor = 24

  // MARK: - Derived

  /// Half the triangle's base: an equilateral triangle's base is 2 h / √3.
  public static var triangleHalfBase: Double { (triangleBottom - triangleTop) / 3.0.squareRoot() }

  /// The leaf body as the intersection of two discs whose circles meet at the two tips, on a square of side
  /// `size`: their centres and common radius.
  public static func leafLens(size: Double) -> LeafLens {
    let a = (x: leafTipLow.x * size, y: leafTipLow.y * size)
    let b = (x: leafTipHigh.x * size, y: leafTipHigh.y * size)
    let chord = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
    let sagitta = leafWidthRatio * chord / 2
    // A circle through both tips bulging `sagitta` beyond the chord: R = (c²/4 + h²) / 2h.
    let radius = (chord * chord / 4 + sagitta * sagitta) / (2 * sagitta)
    let mid = (x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    let normal = (x: -(b.y - a.y) / chord, y: (b.x - a.x) / chord)
    let offset = radius - sagitta
    return LeafLens(
      first: (mid.x + normal.x * offset, mid.y + normal.y * offset),
      second: (mid.x - normal.x * offset, mid.y - normal.y * offset), radius: radius, tipLow: a, tipHigh: b)
  }

  /// Whether the point (in units of the unit square) lies inside `icon`'s shape.
  public static func contains(_ icon: CategoryIcon, u: Double, v: Double) -> Bool {
    switch icon {
    case .circle:
      return (u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5) <= circleRadius * circleRadius
    case .square:
      let half = squareSide / 2
      return abs(u - 0.5) <= half && abs(v - 0.5) <= half
    case .triangle:
      let t = (v - triangleTop) / (triangleBottom - triangleTop)
      return t >= 0 && t <= 1 && abs(u - 0.5) <= triangleHalfBase * t
    case .leaf:
      return leafLens(size: 1).contains(x: u, y: v)
    }
  }
}

/// Two discs of one radius whose intersection is the leaf's body.
public struct LeafLens: Sendable {
  public var first: (x: Double, y: Double)
  public var second: (x: Double, y: Double)
  public var radius: Double
  /// The tips where the two circles meet.
  public var tipLow: (x: Double, y: Double)
  public var tipHigh: (x: Double, y: Double)

  public func contains(x: Double, y: Double) -> Bool {
    let r2 = radius * radius
    return (first.x - x) * (first.x - x) + (first.y - y) * (first.y - y) <= r2
      && (second.x - x) * (second.x - x) + (second.y - y) * (second.y - y) <= r2
  }
}
