import StressModel

/// Colours and fills of the day report. Category bands take everything from `StressCategory` (colour, pattern,
/// name); only the tints that keep a dark line readable on top of them are decided here.
public enum ReportStyle {
  // MARK: - Neutrals (Apple's system greys, as the category colours are Apple's system palette)

  public static let paper = RGBColour(hex: 0xFFFFFF)
  public static let ink = RGBColour(hex: 0x1C1C1E)
  public static let muted = RGBColour(hex: 0x636366)
  public static let grid = RGBColour(hex: 0xD1D1D6)
  /// Lines of the three charts: near-black for stress, a dark blue and a dark red for HRV and heart rate. Each
  /// chart has its own panel and title, so none of them depends on its colour.
  public static let stressLine = ink
  public static let hrvLine = RGBColour(hex: 0x0B4F8A)
  public static let heartRateLine = RGBColour(hex: 0x8E1B2C)

  // MARK: - Fills

  /// How far the category colour is lightened towards white for the band's pattern ink and its paper: light
  /// enough that the dark stress line stays the strongest thing on the chart, dark enough that the pattern shows.
  public static let bandInkTint = 0.45
  public static let bandPaperTint = 0.85

  /// The band behind the stress levels of `category`: its own fill pattern, in tints of its own colour.
  public static func band(_ category: StressCategory) -> ReportFill {
    .pattern(
      .category(category.pattern), ink: category.colour.tinted(bandInkTint),
      paper: category.colour.tinted(bandPaperTint))
  }

  /// Time with no windows: sparse light-grey hatching on white, quiet because most of a day is like that.
  public static let noData = ReportFill.pattern(.hatch(spacing: 8), ink: RGBColour(hex: 0xC7C7CC), paper: paper)
  /// Windows measured but not scored (no contact, poor signal, …): dense darker hatching on light grey.
  public static let notScored = ReportFill.pattern(
    .hatch(spacing: 4), ink: RGBColour(hex: 0x8E8E93), paper: RGBColour(hex: 0xF2F2F7))
}

extension RGBColour {
  /// The colour mixed with white: `amount` 0 keeps it, 1 gives white. Mixing with white keeps the hue.
  public func tinted(_ amount: Double) -> RGBColour {
    func mix(_ channel: UInt8) -> UInt8 {
      UInt8((Double(channel) + (255 - Double(channel)) * min(1, max(0, amount))).rounded())
    }
    return RGBColour(red: mix(red), green: mix(green), blue: mix(blue))
  }
}
