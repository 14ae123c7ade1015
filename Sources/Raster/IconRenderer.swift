import Platform
import StressModel

/// Draws the category icons (StressModel's `CategoryIcon`) at any size: a solid outline so the shape reads even
/// when the fill is light, a one-pixel paper gap, and the category's `FillPattern` inside. The shapes are
/// StressModel's `IconGeometry` (shared with the hub's SVG icons), sampled at pixel centres, so every size and
/// every output is drawn from the same geometry.
public enum IconRenderer {
  // MARK: - Public

  /// Outline width for an icon of `size` pixels: 1/24 of the side, at least 2 px.
  public static func outlineWidth(size: Int) -> Int { max(2, size / IconGeometry.outlineDivisor) }

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
      let low = point(IconGeometry.leafTipLow, size: size)
      image.line(from: low, to: point(IconGeometry.leafStemEnd, size: size), thickness: outline)
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
    let lens = IconGeometry.leafLens(size: s)
    for y in 0..<size {
      for x in 0..<size {
        let (cx, cy) = (Double(x) + 0.5, Double(y) + 0.5)
        mask[x, y] = icon == .leaf ? lens.contains(x: cx, y: cy) : IconGeometry.contains(icon, u: cx / s, v: cy / s)
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
}
