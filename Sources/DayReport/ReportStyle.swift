import Raster
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

  /// The band's paper: its category colour lightened this far towards white, so the dark stress line stays the
  /// strongest thing on the chart.
  public static let bandPaperTint = 0.85
  /// The contrast of a band's pattern ink against its paper (WCAG ratio). A fixed tint made the light colours
  /// (yellow, orange) faint; this contrast makes every category's pattern as visible as the others'.
  public static let bandInkContrast = 1.8

  /// The band behind the stress levels of `category`: its own fill pattern, in its own colour on a tint of it.
  public static func band(_ category: StressCategory) -> ReportFill {
    .pattern(.category(category.pattern), ink: bandInk(category), paper: bandPaper(category))
  }

  public static func bandPaper(_ category: StressCategory) -> RGBColour { category.colour.tinted(bandPaperTint) }

  /// The lightest tint of the category colour with `bandInkContrast` against the band's paper, or, when even the
  /// colour itself is too light (yellow), the least shade of it that has it. Steps of 5 %.
  public static func bandInk(_ category: StressCategory) -> RGBColour {
    let paper = bandPaper(category)
    let colour = category.colour
    let steps = (0...18).map { Double($0) * 0.05 }
    if let amount = steps.reversed().first(where: { WCAGContrast.ratio(colour.tinted($0), paper) >= bandInkContrast }) {
      return colour.tinted(amount)
    }
    let shade = steps.first { WCAGContrast.ratio(colour.shaded($0), paper) >= bandInkContrast } ?? 0.9
    return colour.shaded(shade)
  }

  /// Time with no windows: sparse light-grey hatching on white, quiet because most of a day is like that.
  public static let noData = ReportFill.pattern(.hatch(spacing: 8), ink: RGBColour(hex: 0xC7C7CC), paper: paper)
  /// Time still to come (today after now): plain paper, so it does not read as missing data.
  public static let toCome = ReportFill.solid(paper)
  /// Windows measured but not scored (no contact, poor signal, …): dense darker hatching on light grey.
  public static let notScored = ReportFill.pattern(
    .hatch(spacing: 4), ink: RGBColour(hex: 0x8E8E93), paper: RGBColour(hex: 0xF2F2F7))
}
