import Platform
import StressModel

/// WCAG 2.1 contrast (success criteria 1.4.3 and 1.4.11): relative luminance and contrast ratio of sRGB colours.
/// The hub's pages choose their text colour on each category's background with it, and the day report its band
/// tints.
public enum WCAGContrast {
  /// AA for normal text (1.4.3).
  public static let minimumTextRatio = 4.5

  /// Relative luminance, WCAG 2.1 definition (sRGB linearisation threshold 0.04045).
  public static func luminance(_ colour: RGBColour) -> Double {
    func linear(_ channel: UInt8) -> Double {
      let c = Double(channel) / 255
      return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
    return 0.2126 * linear(colour.red) + 0.7152 * linear(colour.green) + 0.0722 * linear(colour.blue)
  }

  /// (L1 + 0.05) / (L2 + 0.05), lighter over darker: 1 (same) to 21 (black on white).
  public static func ratio(_ a: RGBColour, _ b: RGBColour) -> Double {
    let (la, lb) = (luminance(a), luminance(b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
  }

  public static let black = RGBColour(hex: 0x000000)
  public static let white = RGBColour(hex: 0xFFFFFF)

  /// Black or white, whichever contrasts more with `background`.
  public static func textColour(on background: RGBColour) -> RGBColour {
    ratio(black, background) >= ratio(white, background) ? black : white
  }
}

extension RGBColour {
  /// The colour mixed with white: `amount` 0 keeps it, 1 gives white. Mixing with white keeps the hue.
  public func tinted(_ amount: Double) -> RGBColour {
    func mix(_ channel: UInt8) -> UInt8 {
      UInt8((Double(channel) + (255 - Double(channel)) * min(1, max(0, amount))).rounded())
    }
    return RGBColour(red: mix(red), green: mix(green), blue: mix(blue))
  }

  /// The colour mixed with black: `amount` 0 keeps it, 1 gives black.
  public func shaded(_ amount: Double) -> RGBColour {
    func mix(_ channel: UInt8) -> UInt8 { UInt8((Double(channel) * (1 - min(1, max(0, amount)))).rounded()) }
    return RGBColour(red: mix(red), green: mix(green), blue: mix(blue))
  }

  /// A grey of the same relative luminance: the colour as a greyscale print or an achromat sees it.
  public var grey: RGBColour {
    let l = WCAGContrast.luminance(self)
    let srgb = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
    let v = UInt8((min(1, max(0, srgb)) * 255).rounded())
    return RGBColour(red: v, green: v, blue: v)
  }
}
