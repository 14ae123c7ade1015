import Foundation
import StressModel

/// WCAG 2.1 contrast (success criteria 1.4.3 and 1.4.11): relative luminance and contrast ratio of sRGB
/// colours, used to choose the kiosk's text colour on each category's background and tested for every one.
public enum KioskContrast {
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
