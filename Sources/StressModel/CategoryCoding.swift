/// The non-colour codes a category carries. Their visual or temporal definition lives here too, so that the
/// e-ink renderer, the LED scheduler and the kiosk page all draw the same thing.

/// Icon shapes (e-ink, PNG, kiosk SVG).
public enum CategoryIcon: String, Sendable, CaseIterable, Codable {
  case leaf, circle, triangle, square
}

/// 1-bit fill patterns. Geometry (in panel pixels) follows the seeds' pattern specification, scaled for a
/// ~110 dpi e-ink panel: diagonal lines 1 px wide every 6 px, dots 2×2 on a 5 px grid, crosshatch 1 px lines
/// every 5 px in both directions.
public enum FillPattern: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
  case solid, diagonal, dots, crosshatch

  /// Whether pattern pixel (x, y) is ink. Pure function of position, so any renderer tiles it identically.
  public func isInk(x: Int, y: Int) -> Bool {
    switch self {
    case .solid:
      return true
    case .diagonal:
      return (x + y).nonNegativeModulo(6) == 0
    case .dots:
      return x.nonNegativeModulo(5) < 2 && y.nonNegativeModulo(5) < 2
    case .crosshatch:
      return x.nonNegativeModulo(5) == 0 || y.nonNegativeModulo(5) == 0
    }
  }

  public var description: String {
    switch self {
    case .solid: "solid"
    case .diagonal: "diagonal-line"
    case .dots: "dotted"
    case .crosshatch: "crosshatched"
    }
  }
}

/// LED blink patterns as a repeating on/off timeline. Every category has its own rhythm, so a single-colour
/// LED, or a colour-blind reader of an RGB LED, still tells them apart.
public enum BlinkPattern: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
  /// Relaxed: steady on.
  case steady
  /// Mild: 1 s on, 1 s off.
  case slow
  /// Moderate: two 150 ms flashes every 2 s.
  case double
  /// High: 4 Hz, 125 ms on, 125 ms off.
  case fast

  /// One period of the pattern as (on, duration in ms) segments. The sum is the period.
  public var segments: [(on: Bool, milliseconds: Int)] {
    switch self {
    case .steady: [(true, 1000)]
    case .slow: [(true, 1000), (false, 1000)]
    case .double: [(true, 150), (false, 150), (true, 150), (false, 1550)]
    case .fast: [(true, 125), (false, 125)]
    }
  }

  /// Length of one period in milliseconds.
  public var periodMilliseconds: Int { segments.reduce(0) { $0 + $1.milliseconds } }

  /// Whether the LED is on at `milliseconds` after the pattern started.
  public func isOn(atMilliseconds milliseconds: Int) -> Bool {
    var t = milliseconds.nonNegativeModulo(periodMilliseconds)
    for segment in segments {
      if t < segment.milliseconds { return segment.on }
      t -= segment.milliseconds
    }
    return false
  }

  public var description: String {
    switch self {
    case .steady: "steady"
    case .slow: "slowly blinking"
    case .double: "double-blinking"
    case .fast: "fast-blinking"
    }
  }
}

/// An sRGB colour with 8-bit channels.
public struct RGBColour: Sendable, Hashable, Codable {
  public var red: UInt8
  public var green: UInt8
  public var blue: UInt8

  public init(red: UInt8, green: UInt8, blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// From 0xRRGGBB.
  public init(hex: UInt32) {
    self.init(red: UInt8((hex >> 16) & 0xFF), green: UInt8((hex >> 8) & 0xFF), blue: UInt8(hex & 0xFF))
  }

  /// "#RRGGBB".
  public var hexString: String {
    let digits = Array("0123456789ABCDEF")
    var text = "#"
    for channel in [red, green, blue] {
      text.append(digits[Int(channel >> 4)])
      text.append(digits[Int(channel & 0xF)])
    }
    return text
  }
}

extension Int {
  /// Modulo that is never negative, for tiling patterns at negative coordinates.
  @inlinable
  func nonNegativeModulo(_ divisor: Int) -> Int {
    let remainder = self % divisor
    return remainder < 0 ? remainder + divisor : remainder
  }
}
