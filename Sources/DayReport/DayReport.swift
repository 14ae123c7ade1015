import StressModel
import SyncWire

/// A picture of one day for a person: stress level over the category bands, HRV and heart rate on a 24-hour
/// axis, with gaps and unscored windows shown as such, plus the day's numbers.
///
///     let report = DayReport(records: rows, day: LocalDay(parsing: "2024-03-12")!)
///     try AtomicFile.write(report.png(), to: "day.png")     // or Array(report.svg().utf8)
///     print(report.summary.sentence)
public struct DayReport: Sendable {
  // MARK: - Properties

  public let timeline: DayTimeline
  public let summary: DaySummary
  public let geometry: ReportGeometry
  /// The one drawing both files are made from.
  public let drawing: ReportDrawing

  // MARK: - Initialization

  /// `records` may hold other days too: only windows ending inside `day` are drawn and counted.
  public init(records: [MeasurementRecord], day: LocalDay) {
    timeline = DayTimeline(records: records, day: day)
    summary = DaySummary(timeline)
    geometry = DayReportLayout.geometry(timeline, summary: summary)
    drawing = DayReportLayout.drawing(timeline, summary: summary)
  }

  // MARK: - Public

  /// The picture as an SVG document.
  public func svg() -> String { SVGWriter.write(drawing) }

  /// The picture as RGB pixels.
  public func raster() -> RGBRaster { RasterRenderer.render(drawing) }

  /// The picture as a PNG file (8-bit truecolour).
  public func png() -> [UInt8] { raster().png() }
}
