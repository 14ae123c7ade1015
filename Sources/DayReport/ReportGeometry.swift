import Raster

/// Where things go on the day report: one horizontal time axis shared by the three charts, and a vertical value
/// axis per chart. Public so tests (and anyone overlaying the picture) can map times and values to pixels.
public struct ReportGeometry: Sendable {
  // MARK: - Constants (pixels)

  public static let width = 1100
  /// 960 px for 24 h: 40 px an hour, 90 s a pixel (nine 10-s results a pixel).
  public static let plotLeft = 60
  public static let plotWidth = 960
  /// 2 px per stress point, with a row for level 0 and one for 100.
  public static let stressHeight = 201
  public static let valueHeight = 101
  static let titleTop = 12
  static let summaryTop = 42
  static let lineStep = 13
  static let labelGap = 14
  static let chartGap = 16

  // MARK: - Properties

  public let time: TimeAxis
  public let stress: ValueAxis
  public let hrv: ValueAxis
  public let heartRate: ValueAxis
  public let summaryLines: Int
  public let footerLines: Int

  /// Top of the title, the summary lines, the legend row, and the hour labels under the last chart.
  public var titleTop: Int { Self.titleTop }
  public var summaryTop: Int { Self.summaryTop }
  public var legendTop: Int { Self.summaryTop + summaryLines * Self.lineStep + 8 }
  public var hourLabelTop: Int { heartRate.rect.maxY + 5 }
  public var footerTop: Int { hourLabelTop + 20 }
  public var height: Int { footerTop + footerLines * Self.lineStep + 8 }

  // MARK: - Initialization

  public init(
    day: LocalDay, summaryLines: Int, footerLines: Int, hrvRange: ClosedRange<Double>,
    heartRateRange: ClosedRange<Double>
  ) {
    self.summaryLines = summaryLines
    self.footerLines = footerLines
    time = TimeAxis(day: day, left: Self.plotLeft, width: Self.plotWidth)
    let stressTop = Self.summaryTop + summaryLines * Self.lineStep + 8 + 22 + Self.labelGap
    stress = ValueAxis(
      rect: Rect(x: Self.plotLeft, y: stressTop, width: Self.plotWidth, height: Self.stressHeight), range: 0...100)
    let hrvTop = stress.rect.maxY + Self.chartGap + Self.labelGap
    hrv = ValueAxis(
      rect: Rect(x: Self.plotLeft, y: hrvTop, width: Self.plotWidth, height: Self.valueHeight), range: hrvRange)
    let heartRateTop = hrv.rect.maxY + Self.chartGap + Self.labelGap
    heartRate = ValueAxis(
      rect: Rect(x: Self.plotLeft, y: heartRateTop, width: Self.plotWidth, height: Self.valueHeight),
      range: heartRateRange)
  }
}

/// The 24-hour axis: local midnight at `left`, the next midnight at `left + width`.
public struct TimeAxis: Sendable {
  public let day: LocalDay
  public let left: Int
  public let width: Int

  /// The x of an instant (epoch seconds), not rounded.
  public func x(_ time: Double) -> Double {
    Double(left) + (time - day.start) / day.duration * Double(width)
  }

  /// The whole pixel columns covering [start, end): at least one column, so a single short window still shows.
  public func columns(from start: Double, to end: Double) -> (x: Int, width: Int) {
    let first = Int(x(start).rounded(.down))
    let last = max(first + 1, Int(x(end).rounded(.up)))
    let clippedFirst = max(left, first)
    return (clippedFirst, max(1, min(left + width, last) - clippedFirst))
  }
}

/// A chart's vertical scale: `range.upperBound` on the top row of `rect`, `range.lowerBound` on the bottom row.
public struct ValueAxis: Sendable {
  public let rect: Rect
  public let range: ClosedRange<Double>

  /// The y of a value, not rounded (values outside the range land outside the chart and are clamped).
  public func y(_ value: Double) -> Double {
    let clamped = min(range.upperBound, max(range.lowerBound, value))
    let share = (range.upperBound - clamped) / (range.upperBound - range.lowerBound)
    return Double(rect.y) + share * Double(rect.height - 1)
  }

  /// The value a pixel row stands for.
  public func value(atRow row: Int) -> Double {
    let share = Double(row - rect.y) / Double(rect.height - 1)
    return range.upperBound - share * (range.upperBound - range.lowerBound)
  }

  /// A range from 0 (or a floor) to a round number above `maximum`, for HRV and heart-rate charts.
  public static func roundedRange(of values: [Double], fallback: ClosedRange<Double>, step: Double, fromZero: Bool)
    -> ClosedRange<Double>
  {
    guard let low = values.min(), let high = values.max() else { return fallback }
    let lower = fromZero ? 0 : max(0, (low / step).rounded(.down) * step)
    var upper = (high / step).rounded(.up) * step
    if upper - lower < 2 * step { upper = lower + 2 * step }
    return lower...upper
  }
}
