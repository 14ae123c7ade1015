import Raster
import StressModel

/// The key under the summary: a swatch of each category band (its pattern and colour) with its name, then the
/// two hatchings for time without a score.
enum ReportLegend {
  static let swatch = (width: 22, height: 12)
  static let spacing = 18

  static func group(top: Int) -> ReportGroup {
    var group = ReportGroup(label: "Legend")
    var x = ReportGeometry.plotLeft
    var entries: [(String, ReportFill, String)] = StressCategory.allCases.map { category in
      let (lower, upper) = category.levelRange
      return (category.displayName, ReportStyle.band(category),
              "\(category.displayName): stress \(Int(lower))-\(Int(upper)), \(category.pattern.description) fill")
    }
    entries.append(("No data", ReportStyle.noData, "No data: no windows, sparse hatching"))
    entries.append((
      "Not scored (no contact, poor signal)", ReportStyle.notScored,
      "Not scored: windows without a stress level (no contact, poor signal), dense hatching"))
    for (name, fill, label) in entries {
      let rect = Rect(x: x, y: top, width: swatch.width, height: swatch.height)
      group.add(.rect(rect, fill: fill), label: label)
      group.add(.frame(rect, colour: ReportStyle.muted))
      x += swatch.width + 5
      group.add(.text(name, x: x, y: top + 2, scale: 1, colour: ReportStyle.ink, anchor: .start))
      x += RasterRenderer.font.width(of: name) + spacing
    }
    return group
  }
}
