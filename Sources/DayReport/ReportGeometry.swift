import Raster

/// Where things go on the day report: one horizontal time axis shared by the three charts (the whole day, or
/// zoomed to part of it), and a vertical value axis per chart. Public so tests (and anyone overlaying the picture)
/// can map times and values to pixels.
public struct ReportGeometry: Sendable {
  // MARK: - Constants (pixels)

  public static let width = 1100
  /// 960 px for the time shown: 40 px an hour and 90 s a pixel (nine 10-s results) for a whole day.
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
  /// Whether the picture carries its title and summary (a page that prints them itself leaves them out).
  public let header: Bool

  /// Top of the title, the summary lines, the legend row, and the hour labels under the last chart.
  public var titleTop: Int { Self.titleTop }
  public var summaryTop: Int { Self.summaryTop }
  public var legendTop: Int { (header ? Self.summaryTop + summaryLines * Self.lineStep : 0) + 8 }
  public var hourLabelTop: Int { heartRate.rect.maxY + 5 }
  public var footerTop: Int { hourLabelTop + 20 }
  public var height: Int { footerTop + footerLines * Self.lineStep + 8 }

  // MARK: - Initialization

  /// `span`: the part of the day the time axis shows (the whole day unless zoomed).
  public init(
    day: LocalDay, span: Range<Double>? = nil, header: Bool = true, summaryLines: Int, footerLines: Int,
    hrvRange: ClosedRange<Double>, heartRateRange: ClosedRange<Double>
  ) {
    self.summaryLines = summaryLines
    self.footerLines = footerLines
    self.header = header
    let shown = span ?? day.start..<day.end
    time = TimeAxis(day: day, start: shown.lowerBound, end: shown.upperBound, left: Self.plotLeft, width: Self.plotWidth)
    let stressTop = (header ? Self.summaryTop + summaryLines * Self.lineStep : 0) + 8 + 22 + Self.labelGap
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

/// The time axis: `start` (local midnight unless zoomed) at `left`, `end` at `left + width`.
public struct TimeAxis: Sendable {
  public let day: LocalDay
  public let start: Double
  public let end: Double
  public let left: Int
  public let width: Int

  /// Tick spacings in minutes, the smallest giving at most `maxTicks` intervals is used: 3 h for a whole day.
  static let tickMinutes = [15, 30, 60, 120, 180]
  static let maxTicks = 8

  public init(day: LocalDay, start: Double? = nil, end: Double? = nil, left: Int, width: Int) {
    self.day = day
    self.start = start ?? day.start
    self.end = max((start ?? day.start) + 1, end ?? day.end)
    self.left = left
    self.width = width
  }

  /// Seconds a pixel column stands for.
  public var secondsPerPixel: Double { (end - start) / Double(width) }

  /// The x of an instant (epoch seconds), not rounded.
  public func x(_ time: Double) -> Double {
    Double(left) + (time - start) / (end - start) * Double(width)
  }

  /// The whole pixel columns covering [start, end): at least one column, so a single short window still shows.
  public func columns(from start: Double, to end: Double) -> (x: Int, width: Int) {
    let first = Int(x(start).rounded(.down))
    let last = max(first + 1, Int(x(end).rounded(.up)))
    let clippedFirst = min(left + width - 1, max(left, first))
    return (clippedFirst, max(1, min(left + width, last) - clippedFirst))
  }

  /// Instants of the labelled ticks, on the local wall clock (whole hours follow a daylight-saving change).
  public var ticks: [Double] {
    let minutes = Self.tickMinutes.first { Double($0 * 60 * Self.maxTicks) >= end - start } ?? 180
    var ticks: [Double] = []
    for hour in 0...24 {
      let instant = day.instant(hour: hour)
      if minutes >= 60 {
        if hour % (minutes / 60) == 0, instant >= start - 1, instant <= end + 1 { ticks.append(instant) }
        continue
      }
      guard hour < 24 else {
        if instant >= start - 1, instant <= end + 1 { ticks.append(instant) }
        break
      }
      for quarter in stride(from: 0, to: 60, by: minutes) {
        let tick = instant + Double(quarter * 60)
        if tick >= start - 1, tick <= end + 1 { ticks.append(tick) }
      }
    }
    return ticks
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
