import Platform
import Raster
import StressModel
import SyncWire

/// Lays out the picture of a day: title, summary, legend, then three charts on one time axis (the whole day, or
/// zoomed to the measured span): stress level over the four category bands, HRV (SDNN) and heart rate. Time with
/// no windows and windows that were not scored are hatched across all three charts and named; no line is drawn
/// across them. Time still to come is left blank.
enum DayReportLayout {
  static let font = RasterRenderer.font
  /// HRV axis in steps of 20 ms from 0; heart-rate axis in steps of 10 bpm. Fallbacks for a day without scores.
  static let hrvStep = 20.0
  static let heartRateStep = 10.0
  static let hrvFallback = 0.0...100.0
  static let heartRateFallback = 50.0...100.0

  // MARK: - Public

  static func geometry(_ timeline: DayTimeline, summary: DaySummary, options: DayReport.Options) -> ReportGeometry {
    let scored = timeline.goodRuns.flatMap { $0 }
    let span = shownSpan(timeline, options: options)
    return ReportGeometry(
      day: timeline.day, span: span, header: options.header,
      summaryLines: options.header ? summaryLines(summary).count : 0,
      footerLines: footerLines(timeline, summary, span: span).count,
      hrvRange: ValueAxis.roundedRange(
        of: scored.compactMap(\.sdnnMs), fallback: hrvFallback, step: hrvStep, fromZero: true),
      heartRateRange: ValueAxis.roundedRange(
        of: scored.compactMap(\.heartRateBpm), fallback: heartRateFallback, step: heartRateStep, fromZero: false))
  }

  static func drawing(_ timeline: DayTimeline, summary: DaySummary, options: DayReport.Options) -> ReportDrawing {
    let geometry = geometry(timeline, summary: summary, options: options)
    let day = timeline.day
    var header = ReportGroup(label: "Title and summary")
    if options.header {
      header.add(.text(title(day), x: ReportGeometry.plotLeft, y: geometry.titleTop, scale: 2,
                       colour: ReportStyle.ink, anchor: .start))
      for (index, line) in summaryLines(summary).enumerated() {
        header.add(.text(line, x: ReportGeometry.plotLeft, y: geometry.summaryTop + index * ReportGeometry.lineStep,
                         scale: 1, colour: ReportStyle.ink, anchor: .start))
      }
    }
    var stress = ReportGroup(label: "Stress level 0-100 over the four category bands")
    let bands = StressCategory.allCases.compactMap { category in
      bandRect(category, axis: geometry.stress).map { (category, $0) }
    }
    for (category, rect) in bands {
      let (lower, upper) = category.levelRange
      stress.add(.rect(rect, fill: ReportStyle.band(category)),
                 label: "\(category.displayName) band, stress \(Int(lower))-\(Int(upper)): "
                   + "\(category.pattern.description) \(category.colourName) fill")
    }
    var hrv = ReportGroup(label: "Heart-rate variability, SDNN in milliseconds")
    hrv.add(.rect(geometry.hrv.rect, fill: .solid(ReportStyle.paper)))
    var heartRate = ReportGroup(label: "Heart rate in beats per minute")
    heartRate.add(.rect(geometry.heartRate.rect, fill: .solid(ReportStyle.paper)))

    let shown = geometry.time.start..<geometry.time.end
    let unscored = (timeline.spans + outerSpans(timeline, shown: shown, now: options.now))
      .filter { !isCategory($0.kind) && $0.end > shown.lowerBound && $0.start < shown.upperBound }
    stress.items += hatching(unscored, axis: geometry.stress, time: geometry.time, named: true)
    hrv.items += hatching(unscored, axis: geometry.hrv, time: geometry.time, named: false)
    heartRate.items += hatching(unscored, axis: geometry.heartRate, time: geometry.time, named: false)
    for run in timeline.goodRuns {
      addLine(run, value: \.stressLevel, axis: geometry.stress, time: geometry.time, colour: ReportStyle.stressLine,
              what: "Stress level", unit: "", to: &stress)
      addLine(run, value: \.sdnnMs, axis: geometry.hrv, time: geometry.time, colour: ReportStyle.hrvLine,
              what: "HRV", unit: " ms", to: &hrv)
      addLine(run, value: \.heartRateBpm, axis: geometry.heartRate, time: geometry.time,
              colour: ReportStyle.heartRateLine, what: "Heart rate", unit: " bpm", to: &heartRate)
    }
    addAxes(geometry.stress, title: "Stress level (0-100) over the category bands", ticks: [0, 25, 50, 75, 100],
            to: &stress)
    for (category, band) in bands {
      // A key beside each band: its fill and name, readable where the band itself is hidden by "no data".
      let key = Rect(x: band.maxX + 4, y: band.y, width: 8, height: band.height)
      stress.add(.rect(key, fill: ReportStyle.band(category)))
      stress.add(.text(category.displayName, x: band.maxX + 16, y: band.y + band.height / 2 - font.ascent / 2,
                       scale: 1, colour: ReportStyle.ink, anchor: .start))
    }
    addAxes(geometry.hrv, title: "HRV (SDNN, ms)", ticks: ticks(geometry.hrv.range), to: &hrv)
    addAxes(geometry.heartRate, title: "Heart rate (bpm)", ticks: ticks(geometry.heartRate.range), to: &heartRate)
    if timeline.records.isEmpty {
      stress.add(.text("No measurements on this day", x: geometry.stress.rect.x + geometry.stress.rect.width / 2,
                       y: geometry.stress.rect.y + 90, scale: 2, colour: ReportStyle.ink, anchor: .middle))
    }
    if let future = futureSpan(timeline, shown: shown, now: options.now) {
      stress.items += comingLabel(future, axis: geometry.stress, time: geometry.time)
    }
    var footer = ReportGroup(label: "Time axis and notes")
    for tick in geometry.time.ticks {
      let x = Int(geometry.time.x(tick).rounded())
      footer.add(.text(day.clockText(tick), x: x, y: geometry.hourLabelTop, scale: 1,
                       colour: ReportStyle.muted, anchor: .middle))
    }
    for (index, line) in footerLines(timeline, summary, span: shown).enumerated() {
      footer.add(.text(line, x: ReportGeometry.plotLeft, y: geometry.footerTop + index * ReportGeometry.lineStep,
                       scale: 1, colour: ReportStyle.muted, anchor: .start))
    }
    return ReportDrawing(
      width: ReportGeometry.width, height: geometry.height, title: title(day),
      // Without the header the page around the picture says the summary; the description does not repeat it.
      description: (options.header ? summary.sentence + " " : "")
        + footerLines(timeline, summary, span: shown).joined(separator: " "),
      background: ReportStyle.paper,
      groups: [header, ReportLegend.group(top: geometry.legendTop), stress, hrv, heartRate, footer])
  }

  // MARK: - Text

  static func title(_ day: LocalDay) -> String { "Stress on \(day.weekdayName) \(day)" }

  /// The summary sentence wrapped to the plot's width at its " · " separators.
  static func summaryLines(_ summary: DaySummary) -> [String] {
    let limit = ReportGeometry.plotWidth + 40
    var lines: [String] = []
    var current = ""
    for part in summary.sentenceParts {
      let candidate = current.isEmpty ? part : current + " · " + part
      if !current.isEmpty && font.width(of: candidate) > limit {
        lines.append(current + " ·")
        current = part
      } else {
        current = candidate
      }
    }
    if !current.isEmpty { lines.append(current) }
    return lines
  }

  static func footerLines(_ timeline: DayTimeline, _ summary: DaySummary, span: Range<Double>) -> [String] {
    let day = timeline.day
    let zoomed = span.lowerBound > day.start || span.upperBound < day.end
    let range = "\(day.clockText(span.lowerBound))-\(day.clockText(span.upperBound))"
    let shown = zoomed ? "Shown \(range), the measured span. " : ""
    let perPixel = Int(((span.upperBound - span.lowerBound) / Double(ReportGeometry.plotWidth)).rounded())
    var lines = [
      "\(shown)Times in \(LocalDay.zoneText(epochSeconds: day.start)). Results every \(Int(timeline.stepSeconds)) s, "
        + "averaged per pixel (\(perPixel) s); lines stop at gaps and unscored windows, nothing is filled in.",
    ]
    if summary.unsynchronisedWindows > 0 {
      lines.append("Measured before the clock was set: \(counted(summary.unsynchronisedWindows, "window")); their "
        + "times may be off.")
    }
    return lines
  }

  // MARK: - Private

  private static func isCategory(_ kind: DayTimeline.Kind) -> Bool {
    if case .category = kind { return true }
    return false
  }

  /// The part of the day the time axis shows: the whole day, or zoomed to whole hours around the measured span
  /// (at least an hour, never past the day).
  static func shownSpan(_ timeline: DayTimeline, options: DayReport.Options) -> Range<Double> {
    let day = timeline.day
    guard options.zoom, let first = timeline.spans.first, let last = timeline.spans.last else {
      return day.start..<day.end
    }
    let hours = (0...24).map { day.instant(hour: $0) }
    let startHour = hours.lastIndex { $0 <= first.start } ?? 0
    var endHour = hours.firstIndex { $0 >= last.end } ?? 24
    if endHour <= startHour { endHour = min(24, startHour + 1) }
    return hours[startHour]..<hours[max(endHour, startHour + 1)]
  }

  /// No data before the first window and after the last one up to `now` (not gaps: the day had not started or
  /// had ended), within the shown span.
  private static func outerSpans(_ timeline: DayTimeline, shown: Range<Double>, now: Double?) -> [DayTimeline.Span] {
    let past = min(shown.upperBound, max(shown.lowerBound, now ?? shown.upperBound))
    guard let first = timeline.spans.first, let last = timeline.spans.last else {
      return past > shown.lowerBound
        ? [DayTimeline.Span(kind: .gap, start: shown.lowerBound, end: past, windows: 0)] : []
    }
    var spans: [DayTimeline.Span] = []
    if first.start > shown.lowerBound {
      spans.append(DayTimeline.Span(kind: .gap, start: shown.lowerBound, end: first.start, windows: 0))
    }
    if last.end < past {
      spans.append(DayTimeline.Span(kind: .gap, start: last.end, end: past, windows: 0))
    }
    return spans
  }

  /// The time after `now` (and after the last window) that the chart shows: still to come, left blank.
  private static func futureSpan(_ timeline: DayTimeline, shown: Range<Double>, now: Double?) -> Range<Double>? {
    guard let now else { return nil }
    let start = max(now, timeline.spans.last?.end ?? now, shown.lowerBound)
    return start < shown.upperBound ? start..<shown.upperBound : nil
  }

  /// "to come" over the blank part of the stress chart, where it fits.
  private static func comingLabel(_ future: Range<Double>, axis: ValueAxis, time: TimeAxis) -> [ReportItem] {
    let (x, width) = time.columns(from: future.lowerBound, to: future.upperBound)
    var group = ReportGroup(label: "")
    group.add(
      .rect(Rect(x: x, y: axis.rect.y, width: width, height: axis.rect.height), fill: ReportStyle.toCome),
      label: "to come \(time.day.clockText(future.lowerBound))-\(time.day.clockText(future.upperBound))")
    let name = "to come"
    let textWidth = font.width(of: name)
    if width >= textWidth + 6 {
      group.add(.text(name, x: x + width / 2 - textWidth / 2, y: axis.rect.y + 4, scale: 1, colour: ReportStyle.muted,
                      anchor: .start))
    }
    return group.items
  }

  /// The rows whose level falls in the category, by the category table itself.
  private static func bandRect(_ category: StressCategory, axis: ValueAxis) -> Rect? {
    let rows = (axis.rect.minY..<axis.rect.maxY).filter { StressCategory(level: axis.value(atRow: $0)) == category }
    guard let top = rows.min(), let bottom = rows.max() else { return nil }
    return Rect(x: axis.rect.x, y: top, width: axis.rect.width, height: bottom - top + 1)
  }

  /// Hatching over time without a score, then the grid over it (hour lines help read the time of a session;
  /// value lines only where the chart has no bands), then the names of the hatched spans on top.
  private static func hatching(
    _ spans: [DayTimeline.Span], axis: ValueAxis, time: TimeAxis, named: Bool
  ) -> [ReportItem] {
    var group = ReportGroup(label: "")
    var names = ReportGroup(label: "")
    for span in spans { addOverlay(span, axis: axis, time: time, named: named, to: &group, names: &names) }
    for tick in time.ticks.dropFirst() where tick < time.end - 1 {
      let x = Int(time.x(tick).rounded())
      group.add(.rect(Rect(x: x, y: axis.rect.y, width: 1, height: axis.rect.height), fill: .solid(ReportStyle.grid)))
    }
    if !named {
      for value in ticks(axis.range).dropFirst().dropLast() {
        let y = Int(axis.y(value).rounded())
        group.add(.rect(Rect(x: axis.rect.x, y: y, width: axis.rect.width, height: 1), fill: .solid(ReportStyle.grid)))
      }
    }
    return group.items + names.items
  }

  private static func addOverlay(
    _ span: DayTimeline.Span, axis: ValueAxis, time: TimeAxis, named: Bool, to group: inout ReportGroup,
    names: inout ReportGroup
  ) {
    let (x, width) = time.columns(from: span.start, to: span.end)
    let name: String
    let fill: ReportFill
    switch span.kind {
    case .uncategorised(let quality):
      (name, fill) = (quality.displayText, ReportStyle.notScored)
    default:
      (name, fill) = ("no data", ReportStyle.noData)
    }
    let when = time.day.clockText(span.start) + "-" + time.day.clockText(span.end)
    let windows = span.windows > 0 ? ", " + counted(span.windows, "window") : ""
    group.add(
      .rect(Rect(x: x, y: axis.rect.y, width: width, height: axis.rect.height), fill: fill),
      label: "\(name) \(when) (\(DaySummary.duration(minutes: (span.end - span.start) / 60))\(windows))")
    let textWidth = font.width(of: name)
    guard named, width >= textWidth + 6 else { return }
    let textX = x + width / 2
    names.add(.rect(Rect(x: textX - textWidth / 2 - 2, y: axis.rect.y + 3, width: textWidth + 4,
                         height: font.lineHeight()), fill: .solid(ReportStyle.paper)))
    names.add(.text(name, x: textX - textWidth / 2, y: axis.rect.y + 4, scale: 1, colour: ReportStyle.ink,
                    anchor: .start))
  }

  /// One line per run of scored windows. Points are the mean of the windows ending in each pixel column (nine
  /// 10-s results share a column at 90 s a pixel), so the line shows the course of the day instead of a solid
  /// scribble; the SVG keeps the same points. The tooltip gives the run's time, range and window count.
  private static func addLine(
    _ run: [MeasurementRecord], value: KeyPath<MeasurementRecord, Double?>, axis: ValueAxis, time: TimeAxis,
    colour: RGBColour, what: String, unit: String, to group: inout ReportGroup
  ) {
    var points: [ReportPoint] = []
    var column = Int.min
    var sums = (x: 0.0, value: 0.0, count: 0.0)
    func flush() {
      guard sums.count > 0 else { return }
      points.append(ReportPoint(x: sums.x / sums.count, y: axis.y(sums.value / sums.count)))
    }
    for record in run {
      guard let v = record[keyPath: value] else { continue }
      let x = time.x(record.windowEnd)
      if Int(x.rounded(.down)) != column {
        flush()
        column = Int(x.rounded(.down))
        sums = (0, 0, 0)
      }
      sums = (sums.x + x, sums.value + v, sums.count + 1)
    }
    flush()
    let values = run.compactMap { $0[keyPath: value] }
    guard !points.isEmpty, let first = run.first, let last = run.last, let low = values.min(), let high = values.max()
    else { return }
    group.add(
      .polyline(points, colour: colour, width: 2),
      label: "\(what) \(time.day.clockText(first.windowEnd))-\(time.day.clockText(last.windowEnd)): "
        + "\(low.formatted(decimals: 0))-\(high.formatted(decimals: 0))\(unit), \(counted(run.count, "window"))")
  }

  private static func addAxes(_ axis: ValueAxis, title: String, ticks: [Double], to group: inout ReportGroup) {
    let frame = Rect(x: axis.rect.x - 1, y: axis.rect.y - 1, width: axis.rect.width + 2, height: axis.rect.height + 2)
    group.add(.frame(frame, colour: ReportStyle.muted))
    group.add(.text(title, x: axis.rect.x, y: axis.rect.y - ReportGeometry.labelGap, scale: 1,
                    colour: ReportStyle.ink, anchor: .start))
    for value in ticks {
      let y = Int(axis.y(value).rounded()) - font.ascent / 2
      group.add(.text(value.formatted(decimals: 0), x: axis.rect.x - 6, y: y, scale: 1, colour: ReportStyle.muted,
                      anchor: .end))
    }
  }

  private static func ticks(_ range: ClosedRange<Double>) -> [Double] {
    [range.lowerBound, (range.lowerBound + range.upperBound) / 2, range.upperBound]
  }
}
