/// A 1-bit image: what an e-paper panel shows. Rows are packed 8 pixels a byte, most significant bit leftmost
/// (the layout of PBM and of the SSD168x RAM), and a set bit is ink (black). Drawing outside the image is
/// clipped, reading outside it gives paper.
public struct Bitmap: Sendable, Hashable {
  // MARK: - Properties

  public let width: Int
  public let height: Int
  /// Bytes per row: `(width + 7) / 8`; padding bits at the end of a row are always 0.
  public let rowBytes: Int
  /// `height * rowBytes` bytes, row after row.
  public private(set) var bytes: [UInt8]

  // MARK: - Initialization

  /// A blank (all paper) image, or all ink.
  public init(width: Int, height: Int, ink: Bool = false) {
    precondition(width >= 0 && height >= 0, "bitmap size must not be negative")
    self.width = width
    self.height = height
    rowBytes = (width + 7) / 8
    bytes = [UInt8](repeating: 0, count: rowBytes * height)
    if ink { fill(Rect(x: 0, y: 0, width: width, height: height)) }
  }

  /// From packed rows as `bytes` describes them. Returns nil when the count does not match.
  public init?(width: Int, height: Int, packedRows: [UInt8]) {
    self.init(width: width, height: height)
    guard packedRows.count == rowBytes * height else { return nil }
    bytes = packedRows
    clearPadding()
  }

  // MARK: - Pixels

  /// Whether (x, y) is ink. Outside the image: false.
  public subscript(x: Int, y: Int) -> Bool {
    get {
      guard contains(x: x, y: y) else { return false }
      return bytes[y * rowBytes + (x >> 3)] & (0x80 >> UInt8(x & 7)) != 0
    }
    set {
      guard contains(x: x, y: y) else { return }
      let index = y * rowBytes + (x >> 3)
      let bit: UInt8 = 0x80 >> UInt8(x & 7)
      if newValue { bytes[index] |= bit } else { bytes[index] &= ~bit }
    }
  }

  public func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

  /// Number of ink pixels inside `rect` (clipped).
  public func inkCount(in rect: Rect? = nil) -> Int {
    let area = (rect ?? bounds).clipped(to: bounds)
    var count = 0
    for y in area.minY..<area.maxY {
      for x in area.minX..<area.maxX where self[x, y] { count += 1 }
    }
    return count
  }

  public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

  // MARK: - Drawing

  /// Sets every pixel of `rect` to `ink`.
  public mutating func fill(_ rect: Rect, ink: Bool = true) {
    let area = rect.clipped(to: bounds)
    for y in area.minY..<area.maxY {
      for x in area.minX..<area.maxX { self[x, y] = ink }
    }
  }

  /// A rectangle outline `thickness` pixels wide, inside `rect`.
  public mutating func strokeRect(_ rect: Rect, thickness: Int = 1, ink: Bool = true) {
    fill(Rect(x: rect.x, y: rect.y, width: rect.width, height: thickness), ink: ink)
    fill(Rect(x: rect.x, y: rect.maxY - thickness, width: rect.width, height: thickness), ink: ink)
    fill(Rect(x: rect.x, y: rect.y, width: thickness, height: rect.height), ink: ink)
    fill(Rect(x: rect.maxX - thickness, y: rect.y, width: thickness, height: rect.height), ink: ink)
  }

  /// A straight line (Bresenham), `thickness` pixels square pen.
  public mutating func line(from start: (x: Int, y: Int), to end: (x: Int, y: Int), thickness: Int = 1, ink: Bool = true) {
    let offset = (thickness - 1) / 2
    BresenhamLine.forEachPoint(from: start, to: end) { x, y in
      fill(Rect(x: x - offset, y: y - offset, width: thickness, height: thickness), ink: ink)
    }
  }


  /// Copies the ink of `other` onto this image with its top-left corner at (x, y) (paper pixels of `other` leave
  /// this image unchanged).
  public mutating func draw(_ other: Bitmap, atX originX: Int, y originY: Int) {
    for y in 0..<other.height {
      for x in 0..<other.width where other[x, y] { self[originX + x, originY + y] = true }
    }
  }

  // MARK: - Transforms

  /// The part of the image inside `rect` (clipped).
  public func cropped(to rect: Rect) -> Bitmap {
    let area = rect.clipped(to: bounds)
    var result = Bitmap(width: area.width, height: area.height)
    for y in 0..<area.height {
      for x in 0..<area.width where self[area.x + x, area.y + y] { result[x, y] = true }
    }
    return result
  }

  /// The image turned by `quarterTurns` × 90° clockwise.
  public func rotated(clockwiseQuarterTurns quarterTurns: Int) -> Bitmap {
    let turns = ((quarterTurns % 4) + 4) % 4
    guard turns != 0 else { return self }
    var result = turns == 2 ? Bitmap(width: width, height: height) : Bitmap(width: height, height: width)
    for y in 0..<height {
      for x in 0..<width where self[x, y] {
        switch turns {
        case 1: result[height - 1 - y, x] = true
        case 2: result[width - 1 - x, height - 1 - y] = true
        default: result[y, width - 1 - x] = true
        }
      }
    }
    return result
  }

  /// The image scaled up by an integer factor (nearest neighbour), for previews.
  public func scaled(by factor: Int) -> Bitmap {
    guard factor > 1 else { return self }
    var result = Bitmap(width: width * factor, height: height * factor)
    for y in 0..<height {
      for x in 0..<width where self[x, y] {
        result.fill(Rect(x: x * factor, y: y * factor, width: factor, height: factor))
      }
    }
    return result
  }

  /// Ink becomes paper and paper ink.
  public func inverted() -> Bitmap {
    var result = self
    for index in result.bytes.indices { result.bytes[index] = ~result.bytes[index] }
    result.clearPadding()
    return result
  }

  /// Number of pixels where the two images (same size) differ.
  public func differingPixels(from other: Bitmap) -> Int {
    precondition(width == other.width && height == other.height, "compare images of the same size")
    return zip(bytes, other.bytes).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
  }

  // MARK: - Private

  private mutating func clearPadding() {
    let spare = rowBytes * 8 - width
    guard spare > 0 else { return }
    let mask = UInt8(0xFF) << UInt8(spare)
    for row in 0..<height { bytes[row * rowBytes + rowBytes - 1] &= mask }
  }
}

/// An integer rectangle (x, y is the top-left corner).
public struct Rect: Sendable, Hashable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var minX: Int { x }
  public var minY: Int { y }
  public var maxX: Int { x + width }
  public var maxY: Int { y + height }

  public func clipped(to other: Rect) -> Rect {
    let x0 = max(minX, other.minX)
    let y0 = max(minY, other.minY)
    let x1 = min(maxX, other.maxX)
    let y1 = min(maxY, other.maxY)
    return Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
  }

  /// The rectangle shrunk by `amount` on every side.
  public func insetBy(_ amount: Int) -> Rect {
    Rect(x: x + amount, y: y + amount, width: max(0, width - 2 * amount), height: max(0, height - 2 * amount))
  }
}

/// The integer points of a straight line from `start` to `end`, both included (Bresenham 1965, all octants).
/// Shared by the 1-bit canvas and the day report's RGB raster.
public enum BresenhamLine {
  public static func forEachPoint(from start: (x: Int, y: Int), to end: (x: Int, y: Int), _ body: (Int, Int) -> Void) {
    var x = start.x
    var y = start.y
    let dx = abs(end.x - x)
    let dy = -abs(end.y - y)
    let sx = x < end.x ? 1 : -1
    let sy = y < end.y ? 1 : -1
    var error = dx + dy
    while true {
      body(x, y)
      if x == end.x && y == end.y { return }
      let doubled = 2 * error
      if doubled >= dy {
        error += dy
        x += sx
      }
      if doubled <= dx {
        error += dx
        y += sy
      }
    }
  }
}
