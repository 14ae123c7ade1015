import Platform
import StressModel

/// Draws the category icons (StressModel's `CategoryIcon`) at any size: a solid outline so the shape reads even
/// when the fill is light, a one-pixel paper gap, and the category's `FillPattern` inside. Shapes are defined on
/// a unit square and sampled at pixel centres, so every size is drawn from the same geometry.
public enum IconRenderer {
  // MARK: - Geometry (fractions of the icon's side)

  /// Circle radius: nearly the full box.
  static let circleRadius = 0.47
  /// Square side: smaller than the box so the square does not look heavier than the circle.
  static let squareSide = 0.82
  /// Triangle (pointing up): apex and base heights.
  static let triangleTop = 0.06
  static let triangleBottom = 0.90
  /// Leaf: a lens between two tips on the rising diagonal, this wide relative to its length, plus a stem.
  static let leafTipLow = (x: 0.24, y: 0.76)
  static let leafTipHigh = (x: 0.95, y: 0.05)
  static let leafWidthRatio = 0.55
  static let leafStemEnd = (x: 0.05, y: 0.95)

  // MARK: - Public

  /// Outline width for an icon of `size` pixels: 1/24 of the side, at least 2 px.
  public static func outlineWidth(size: Int) -> Int { max(2, size / 24) }

  /// The icon as a `size`×`size` image: outline, a paper gap, and `pattern` inside (tiled from the icon's
  /// top-left corner, so the same icon renders identically wherever it is placed).
  public static func render(_ icon: CategoryIcon, pattern: FillPattern, size: Int) -> Bitmap {
    let inside = shapeMask(icon, size: size)
    let outline = outlineWidth(size: size)
    let border = ring(of: inside, width: outline)
    let interior = interiorMask(icon, size: size)
    var image = Bitmap(width: size, height: size)
    for y in 0..<size {
      for x in 0..<size {
        if border[x, y] {
          image[x, y] = true
        } else if interior[x, y] {
          image[x, y] = pattern.isInk(x: x, y: y)
        }
      }
    }
    if icon == .leaf {
      let low = point(leafTipLow, size: size)
      image.line(from: low, to: point(leafStemEnd, size: size), thickness: outline)
    }
    return image
  }

  /// The pixels the fill pattern covers: inside the shape, beyond the outline and its one-pixel gap.
  public static func interiorMask(_ icon: CategoryIcon, size: Int) -> Bitmap {
    let inside = shapeMask(icon, size: size)
    let excluded = ring(of: inside, width: outlineWidth(size: size) + gap)
    var mask = Bitmap(width: size, height: size)
    for y in 0..<size {
      for x in 0..<size where inside[x, y] && !excluded[x, y] { mask[x, y] = true }
    }
    return mask
  }

  /// Whether the pixel centre (x + ½, y + ½) lies inside the shape.
  public static func shapeMask(_ icon: CategoryIcon, size: Int) -> Bitmap {
    var mask = Bitmap(width: size, height: size)
    let s = Double(size)
    let lens = icon == .leaf ? Lens(size: s) : nil
    for y in 0..<size {
      for x in 0..<size {
        let u = (Double(x) + 0.5) / s
        let v = (Double(y) + 0.5) / s
        let inside: Bool
        switch icon {
        case .circle:
          inside = (u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5) <= circleRadius * circleRadius
        case .square:
          let half = squareSide / 2
          inside = abs(u - 0.5) <= half && abs(v - 0.5) <= half
        case .triangle:
          let height = triangleBottom - triangleTop
          let halfWidth = height / 3.0.squareRoot()  // equilateral: base = 2 h / √3
          let t = (v - triangleTop) / height
          inside = t >= 0 && t <= 1 && abs(u - 0.5) <= halfWidth * t
        case .leaf:
          inside = lens!.contains(x: Double(x) + 0.5, y: Double(y) + 0.5)
        }
        mask[x, y] = inside
      }
    }
    return mask
  }

  // MARK: - Private

  /// Paper between the outline and the pattern, so a dense pattern does not merge with the outline.
  private static let gap = 1

  /// Pixels of `mask` that have a pixel outside the mask (or beyond the image edge) within `width` pixels.
  /// The nearest outside pixel to any inside pixel touches the shape (a step from it towards the inside pixel
  /// would otherwise be a nearer outside pixel), so stamping a disc around each outside pixel that touches the
  /// shape finds them all: work in proportion to the perimeter, not the area.
  private static func ring(of mask: Bitmap, width: Int) -> Bitmap {
    var ring = Bitmap(width: mask.width, height: mask.height)
    let reach = width
    var disc: [(Int, Int)] = []
    for dy in -reach...reach {
      for dx in -reach...reach where dx * dx + dy * dy <= reach * reach { disc.append((dx, dy)) }
    }
    for y in -1...mask.height {
      for x in -1...mask.width where !mask[x, y] {
        let touches = mask[x + 1, y] || mask[x - 1, y] || mask[x, y + 1] || mask[x, y - 1]
        guard touches else { continue }
        for (dx, dy) in disc where mask[x + dx, y + dy] { ring[x + dx, y + dy] = true }
      }
    }
    return ring
  }

  private static func point(_ p: (x: Double, y: Double), size: Int) -> (x: Int, y: Int) {
    (Int((p.x * Double(size)).rounded(.down)), Int((p.y * Double(size)).rounded(.down)))
  }

  /// The leaf body: the intersection of two discs whose circles meet at the two tips.
  private struct Lens {
    var centres: [(x: Double, y: Double)]
    var radius: Double

    init(size s: Double) {
      let a = (x: IconRenderer.leafTipLow.x * s, y: IconRenderer.leafTipLow.y * s)
      let b = (x: IconRenderer.leafTipHigh.x * s, y: IconRenderer.leafTipHigh.y * s)
      let chord = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
      let sagitta = IconRenderer.leafWidthRatio * chord / 2
      // A circle through both tips bulging `sagitta` beyond the chord: R = (c²/4 + h²) / 2h.
      radius = (chord * chord / 4 + sagitta * sagitta) / (2 * sagitta)
      let mid = (x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
      let normal = (x: -(b.y - a.y) / chord, y: (b.x - a.x) / chord)
      let offset = radius - sagitta
      centres = [(mid.x + normal.x * offset, mid.y + normal.y * offset),
                 (mid.x - normal.x * offset, mid.y - normal.y * offset)]
    }

    func contains(x: Double, y: Double) -> Bool {
      centres.allSatisfy { ($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y) <= radius * radius }
    }
  }
}
