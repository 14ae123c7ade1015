import StressModel
import SyncWire

/// A picture of one day for a person: stress level over the category bands, HRV and heart rate on one time axis
/// (the whole day, or zoomed to the measured span), with gaps and unscored windows shown as such, the hours still
/// to come left blank, plus the day's numbers.
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
  public init(records: [MeasurementRecord], day: LocalDay, options: Options = Options()) {
    timeline = DayTimeline(records: records, day: day)
    summary = DaySummary(timeline)
    geometry = DayReportLayout.geometry(timeline, summary: summary, options: options)
    drawing = DayReportLayout.drawing(timeline, summary: summary, options: options)
  }

  /// How the picture is framed.
  public struct Options: Sendable, Equatable {
    /// Zoom the time axis to the measured span (whole hours around the first and last window, at least one
    /// hour) instead of the whole day.
    public var zoom: Bool
    /// The present: time after it is left blank ("to come"), not hatched like time without data.
    public var now: Double?
    /// Draw the title and the summary (a page that prints them itself leaves them out).
    public var header: Bool

    public init(zoom: Bool = false, now: Double? = nil, header: Bool = true) {
      self.zoom = zoom
      self.now = now
      self.header = header
    }
  }

  // MARK: - Public

  /// The picture as an SVG document.
  public func svg() -> String { SVGWriter.write(drawing) }

  /// The picture as RGB pixels.
  public func raster() -> RGBRaster { RasterRenderer.render(drawing) }

  /// The picture as a PNG file (8-bit truecolour).
  public func png() -> [UInt8] { raster().png() }
}
