import Raster
import StressModel

/// An 8-bit RGB image, row after row, three bytes a pixel: what the PNG holds.
public struct RGBRaster: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public private(set) var rgb: [UInt8]

  public init(width: Int, height: Int, background: RGBColour) {
    self.width = width
    self.height = height
    rgb = [UInt8](repeating: 0, count: width * height * 3)
    for index in 0..<(width * height) {
      rgb[3 * index] = background.red
      rgb[3 * index + 1] = background.green
      rgb[3 * index + 2] = background.blue
    }
  }

  /// The colour at (x, y); outside the image, nil. Writes outside are clipped.
  public subscript(x: Int, y: Int) -> RGBColour? {
    get {
      guard x >= 0, y >= 0, x < width, y < height else { return nil }
      let index = 3 * (y * width + x)
      return RGBColour(red: rgb[index], green: rgb[index + 1], blue: rgb[index + 2])
    }
    set {
      guard let newValue, x >= 0, y >= 0, x < width, y < height else { return }
      let index = 3 * (y * width + x)
      rgb[index] = newValue.red
      rgb[index + 1] = newValue.green
      rgb[index + 2] = newValue.blue
    }
  }

  /// The PNG file (8-bit truecolour).
  public func png() -> [UInt8] { PNGEncoder.encodeRGB(width: width, height: height, rgb: rgb) }
}

/// Paints a `ReportDrawing` into an `RGBRaster`: rectangles pixel by pixel (patterns tiled from the image
/// origin, as in the SVG), lines with a square pen, text with `BitmapFont.small`.
public enum RasterRenderer {
  public static let font = BitmapFont.small

  public static func render(_ drawing: ReportDrawing) -> RGBRaster {
    var image = RGBRaster(width: drawing.width, height: drawing.height, background: drawing.background)
    for item in drawing.items {
      switch item.shape {
      case .rect(let rect, let fill):
        let area = rect.clipped(to: Rect(x: 0, y: 0, width: image.width, height: image.height))
        for y in area.minY..<area.maxY {
          for x in area.minX..<area.maxX { image[x, y] = fill.colour(x: x, y: y) }
        }
      case .frame(let rect, let colour):
        guard rect.width > 0, rect.height > 0 else { continue }
        for x in rect.minX..<rect.maxX {
          image[x, rect.minY] = colour
          image[x, rect.maxY - 1] = colour
        }
        for y in rect.minY..<rect.maxY {
          image[rect.minX, y] = colour
          image[rect.maxX - 1, y] = colour
        }
      case .polyline(let points, let colour, let width):
        let pixels = points.map { (x: Int($0.x.rounded()), y: Int($0.y.rounded())) }
        if pixels.count == 1 { stroke(from: pixels[0], to: pixels[0], width: width, colour: colour, into: &image) }
        for (from, to) in zip(pixels, pixels.dropFirst()) {
          stroke(from: from, to: to, width: width, colour: colour, into: &image)
        }
      case .text(let text, let x, let y, let scale, let colour, let anchor):
        let width = font.width(of: text, scale: scale)
        guard width > 0 else { continue }
        var glyphs = Bitmap(width: width, height: font.lineHeight(scale: scale))
        font.draw(text, into: &glyphs, x: 0, y: 0, scale: scale)
        let left = anchoredLeft(x: x, width: width, anchor: anchor)
        for gy in 0..<glyphs.height {
          for gx in 0..<glyphs.width where glyphs[gx, gy] { image[left + gx, y + gy] = colour }
        }
      }
    }
    return image
  }

  /// The left edge of text `width` pixels wide anchored at `x`.
  public static func anchoredLeft(x: Int, width: Int, anchor: TextAnchor) -> Int {
    switch anchor {
    case .start: x
    case .middle: x - width / 2
    case .end: x - width
    }
  }

  // MARK: - Private

  /// Bresenham with a `width`-pixel square pen centred on the line.
  private static func stroke(
    from start: (x: Int, y: Int), to end: (x: Int, y: Int), width: Int, colour: RGBColour, into image: inout RGBRaster
  ) {
    let offset = (width - 1) / 2
    BresenhamLine.forEachPoint(from: start, to: end) { x, y in
      for py in (y - offset)..<(y - offset + width) {
        for px in (x - offset)..<(x - offset + width) { image[px, py] = colour }
      }
    }
  }
}
