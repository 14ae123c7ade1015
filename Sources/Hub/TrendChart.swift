import DayReport
import Foundation
import Raster
import StressModel

/// The last hours of one device as inline SVG, drawn with the day report's coding: the stress level as a line over
/// the four category bands, each band filled with its category's own pattern in tints of its colour
/// (`ReportStyle.band`), so the line's band names the category without colour; HRV as a line below. Slots with
/// a window that was not scored get a grey mark at the foot; slots without a window leave the line broken. A
/// stale device's trend is drawn in greys of the same lightness: the patterns stay, the colour goes.
struct TrendChart {
  /// A fleet-table sparkline, or the kiosk's chart with its labels.
  enum Size {
    case sparkline
    case kiosk

    var width: Double { self == .sparkline ? 150 : 560 }
    var bandHeight: Double { self == .sparkline ? 10 : 30 }
    var hrvHeight: Double { self == .sparkline ? 14 : 50 }
    var gap: Double { self == .sparkline ? 3 : 30 }
    /// Left margin for the level ticks, bottom margin for the time labels.
    var left: Double { self == .sparkline ? 0 : 44 }
    var right: Double { self == .sparkline ? 0 : 12 }
    var top: Double { self == .sparkline ? 0 : 26 }
    var bottom: Double { self == .sparkline ? 0 : 26 }
    /// User units per pattern pixel: the kiosk's chart is drawn 360 px (a phone) to 800 px (a wall) wide, so a
    /// pattern pixel is 2-4 screen pixels, coarse enough to read as the band's texture.
    var patternScale: Int { self == .sparkline ? 1 : 3 }
    var line: Double { self == .sparkline ? 1.6 : 3 }
    var font: Double { 17 }
  }

  let buckets: TrendBuckets
  let points: [TrendPoint]
  let grey: Bool
  let size: Size
  let idPrefix: String

  /// HRV axis from 0 to a multiple of this above the highest value (at least two steps).
  static let hrvStep = 20.0

  func svg() -> String {
    let plotWidth = size.width
    let levelHeight = size.bandHeight * 4
    let width = size.left + plotWidth + size.right
    let hrvTop = size.top + levelHeight + size.gap
    let height = hrvTop + size.hrvHeight + size.bottom
    var defs = ""
    var body = ""
    // The four bands, relaxed at the foot, high at the top.
    for (index, category) in StressCategory.allCases.enumerated() {
      let id = "\(idPrefix)band-\(category.rawValue)"
      var ink = ReportStyle.bandInk(category), paper = ReportStyle.bandPaper(category)
      if grey { (ink, paper) = (ink.grey, paper.grey) }
      defs += KioskIconSVG.patternElement(
        category.pattern, id: id, ink: ink.hexString, paper: paper.hexString, scale: size.patternScale)
      let y = size.top + Double(3 - index) * size.bandHeight
      body += "<rect x=\"\(n(size.left))\" y=\"\(n(y))\" width=\"\(n(plotWidth))\" height=\"\(n(size.bandHeight))\" "
        + "fill=\"url(#\(id))\"/>"
    }
    body += "<rect x=\"\(n(size.left))\" y=\"\(n(hrvTop))\" width=\"\(n(plotWidth))\" height=\"\(n(size.hrvHeight))\" "
      + "fill=\"#FFFFFF\" stroke=\"#8E8E93\" stroke-width=\"1\"/>"
    let sorted = points.sorted { $0.windowEnd < $1.windowEnd }
    let hrvTopValue = Self.hrvRange(sorted.compactMap { $0.category == nil ? nil : $0.hrvMs })
    func x(_ time: Double) -> Double { size.left + (time - buckets.from) / (buckets.end - buckets.from) * plotWidth }
    func levelY(_ level: Double) -> Double { size.top + (1 - StressLevel.clamp(level) / 100) * levelHeight }
    func hrvY(_ hrv: Double) -> Double { hrvTop + (1 - min(hrv, hrvTopValue) / hrvTopValue) * size.hrvHeight }
    // Not scored: a grey mark at the foot of the slot.
    let slotWidth = plotWidth / Double(max(1, buckets.count))
    for point in sorted where point.category == nil {
      let left = size.left + Double(point.bucket) * slotWidth
      body += "<rect x=\"\(n(left))\" y=\"\(n(size.top + levelHeight - 4 * Double(size.patternScale)))\" "
        + "width=\"\(n(slotWidth))\" height=\"\(n(4 * Double(size.patternScale)))\" fill=\"#3A3A3C\"/>"
    }
    for run in Self.runs(sorted) {
      body += polyline(run.map { (x($0.windowEnd), levelY($0.stressLevel ?? 0)) }, colour: ReportStyle.stressLine)
      body += polyline(
        run.compactMap { point in point.hrvMs.map { (x(point.windowEnd), hrvY($0)) } }, colour: ReportStyle.hrvLine)
    }
    if let last = sorted.last(where: { $0.category != nil }), let level = last.stressLevel {
      body += "<circle cx=\"\(n(x(last.windowEnd)))\" cy=\"\(n(levelY(level)))\" r=\"\(n(size.line * 1.6))\" "
        + "fill=\"\(ReportStyle.stressLine.hexString)\"/>"
    }
    if size == .kiosk { body += labels(levelHeight: levelHeight, hrvTop: hrvTop, hrvTopValue: hrvTopValue) }
    return "<svg class=\"trend \(size == .kiosk ? "trend-kiosk" : "trend-spark")\" role=\"img\" "
      + "aria-labelledby=\"\(idPrefix)trend-title\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
      + "xmlns=\"http://www.w3.org/2000/svg\" data-points=\"\(sorted.count)\" data-grey=\"\(grey)\">"
      + "<title id=\"\(idPrefix)trend-title\">\(HTML.escape(description(sorted)))</title>"
      + "<defs>\(defs)</defs>\(body)</svg>"
  }

  /// What the chart shows, for a screen reader and a tooltip.
  func description(_ sorted: [TrendPoint]) -> String {
    let hours = Int(((buckets.end - buckets.from) / 3600).rounded())
    let scored = sorted.filter { $0.category != nil }
    guard let last = scored.last, let level = last.stressLevel, let category = last.category else {
      return "Stress over the last \(hours) hours: no scored window."
    }
    let levels = scored.compactMap(\.stressLevel)
    var text = "Stress over the last \(hours) hours: \(StressLevel.text(level)) at the last scored window "
      + "(\(category.displayName.lowercased()), \(category.pattern.description) band)"
    if let low = levels.min(), let high = levels.max() {
      text += ", between \(StressLevel.text(low)) and \(StressLevel.text(high))"
    }
    let hrvs = scored.compactMap(\.hrvMs)
    if let low = hrvs.min(), let high = hrvs.max() {
      text += "; HRV \(low.formatted(decimals: 0))-\(high.formatted(decimals: 0)) ms"
    }
    return text + (grey ? "; the data is stale." : ".")
  }

  // MARK: - Private

  /// Consecutive slots with scored windows: each is one line, never joined across a missing or unscored slot.
  static func runs(_ sorted: [TrendPoint]) -> [[TrendPoint]] {
    var runs: [[TrendPoint]] = []
    var current: [TrendPoint] = []
    for point in sorted {
      if point.category == nil || (current.last.map { point.bucket - $0.bucket > 1 } ?? false) {
        if !current.isEmpty { runs.append(current) }
        current = []
      }
      if point.category != nil { current.append(point) }
    }
    if !current.isEmpty { runs.append(current) }
    return runs
  }

  static func hrvRange(_ values: [Double]) -> Double {
    guard let high = values.max(), high > 0 else { return 2 * hrvStep }
    return max(2 * hrvStep, (high / hrvStep).rounded(.up) * hrvStep)
  }

  private func polyline(_ points: [(Double, Double)], colour: RGBColour) -> String {
    guard !points.isEmpty else { return "" }
    // A single slot is a short dash, so it still shows.
    let (x, y) = points[0]
    let drawn = points.count == 1 ? [(x - size.line, y), (x + size.line, y)] : points
    return "<polyline points=\"\(drawn.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " "))\" fill=\"none\" "
      + "stroke=\"\(colour.hexString)\" stroke-width=\"\(n(size.line))\" stroke-linejoin=\"round\" "
      + "stroke-linecap=\"round\"/>"
  }

  /// Level ticks, the chart titles, and hours ago under the HRV strip.
  private func labels(levelHeight: Double, hrvTop: Double, hrvTopValue: Double) -> String {
    let font = size.font
    let text = "font-family=\"system-ui, DejaVu Sans, sans-serif\" font-size=\"\(n(font))\" fill=\"#1C1C1E\""
    var out = "<text x=\"\(n(size.left))\" y=\"\(n(size.top - 7))\" \(text) font-weight=\"600\">"
      + "Stress, last \(Int(((buckets.end - buckets.from) / 3600).rounded())) h</text>"
    out += "<text x=\"\(n(size.left))\" y=\"\(n(hrvTop - 7))\" \(text) font-weight=\"600\">HRV (ms)</text>"
    for level in stride(from: 0, through: 100, by: 25) {
      let y = size.top + (1 - Double(level) / 100) * levelHeight
      out += "<text x=\"\(n(size.left - 6))\" y=\"\(n(y + font / 3))\" \(text) text-anchor=\"end\">\(level)</text>"
    }
    for value in [0, hrvTopValue / 2, hrvTopValue] {
      let y = hrvTop + (1 - value / hrvTopValue) * size.hrvHeight
      out += "<text x=\"\(n(size.left - 6))\" y=\"\(n(y + font / 3))\" \(text) text-anchor=\"end\">"
        + "\(value.formatted(decimals: 0))</text>"
    }
    let hours = Int(((buckets.end - buckets.from) / 3600).rounded())
    let step = hours <= 3 ? 1 : hours <= 8 ? 2 : 4
    let bottom = hrvTop + size.hrvHeight + font + 4
    for hour in stride(from: hours, through: 0, by: -step) {
      let x = size.left + (1 - Double(hour) / Double(max(1, hours))) * size.width
      let anchor = hour == hours ? "start" : hour == 0 ? "end" : "middle"
      out += "<text x=\"\(n(x))\" y=\"\(n(bottom))\" \(text) text-anchor=\"\(anchor)\">"
        + "\(hour == 0 ? "now" : "\(hour) h ago")</text>"
    }
    return out
  }

  private func n(_ value: Double) -> String { KioskIconSVG.number(value) }
}
