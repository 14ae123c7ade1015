import ArgumentParser
import CommandSupport
import DayReport
import FoundationEssentials
import Platform
import Store
import StressModel
import SyncWire

/// `stressmon report`: a picture of one day from the store (or from an export), as PNG or SVG.
struct ReportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Draw a day as a picture: stress level over the category bands, HRV, heart rate and the gaps.",
    discussion: """
      Three charts share one 24-hour axis (local time, midnight to midnight):
        - the stress level (0-100) over the four category bands, each band in its own colour AND its own \
      pattern and name (\(Self.bandKey)), so the picture reads in grey print and for colour-blind eyes;
        - heart-rate variability (SDNN, ms);
        - heart rate (bpm).
      Time with no measurements is hatched and marked "no data"; windows that were measured but could not be \
      scored (no contact, poor signal) are hatched more densely and named. Lines stop there: nothing is filled in.
      Above the charts: the date, and time measured, time in each category, mean HRV and heart rate.

      The file type follows the extension of --out: .png (colour image) or .svg (vector, with text labels a \
      screen reader can read). With --json the day's numbers are printed on stdout as one JSON object.

      Examples:
        stressmon report --out today.png
        stressmon report --day 2024-03-12 --out day.svg --json
        stressmon export --out week.json && stressmon report --from-json week.json --day 2024-03-12 --out day.png
      """
  )

  /// "Relaxed solid, Mild diagonal-line, …", from the category table.
  static var bandKey: String {
    StressCategory.allCases.map { "\($0.displayName) \($0.pattern.description)" }.joined(separator: ", ")
  }

  @Option(name: .long, help: ArgumentHelp(
    "The day to draw, YYYY-MM-DD, local time (default: today; with --from-json, the day of the file's last window).",
    valueName: "date"))
  var day: String?

  @Option(name: .long, help: ArgumentHelp("Output file, .png or .svg.", valueName: "file"))
  var out: String

  @Option(name: .long, help: ArgumentHelp("The measurement store (default: the daemon's store).", valueName: "path"))
  var db: String?

  @Option(name: .customLong("from-json"), help: ArgumentHelp(
    "Draw from a file written by 'stressmon export' (a JSON array of measurements) instead of the store.",
    valueName: "file"))
  var fromJSON: String?

  @Flag(name: .long, help: "Print the day's numbers as one JSON object on stdout.")
  var json = false

  func run() throws {
    let format = try Self.format(of: out)
    if fromJSON != nil && db != nil {
      throw CLIFailure.usage("give either --db (read the store) or --from-json (read an export), not both")
    }
    var requestedDay: LocalDay?
    if let day {
      do {
        requestedDay = try LocalDay.parse(day)
      } catch .malformed {
        throw CLIFailure.usage("--day needs a date as YYYY-MM-DD (e.g. 2024-03-12), got '\(day)'")
      } catch {
        throw CLIFailure.usage("--day \(error)")
      }
    }
    let records: [MeasurementRecord]
    let reportDay: LocalDay
    if let fromJSON {
      records = try Self.readExport(fromJSON)
      reportDay = requestedDay
        ?? records.map(\.windowEnd).max().map { LocalDay.containing(epochSeconds: $0 - 0.001) } ?? LocalDay.today()
    } else {
      reportDay = requestedDay ?? LocalDay.today()
      records = try loadDay(dbPath: db, day: reportDay)
    }
    // Today's hours still to come are left blank, not hatched as if data were missing.
    let report = DayReport(records: records, day: reportDay, options: .init(now: Double(time(nil))))
    let bytes = format == "png" ? report.png() : Array(report.svg().utf8)
    do {
      try AtomicFile.write(bytes, to: out)
    } catch {
      throw CLIFailure.cannotCreate(
        "cannot write the report: \(error); check that the directory exists and is writable")
    }
    if json {
      try CLIOutput.json(ReportOutput(
        out: out, format: format, width: report.drawing.width, height: report.drawing.height, bytes: bytes.count,
        summary: report.summary))
    } else {
      CLIOutput.line("Wrote \(out) (\(report.drawing.width)×\(report.drawing.height)): \(report.summary.sentence)")
    }
  }

  // MARK: - Data

  /// The day's measurements from the store (windows ending within the local day), opened read-only.
  func loadDay(dbPath: String?, day: LocalDay) throws -> [MeasurementRecord] {
    let path = dbPath ?? StorePaths.defaultDatabasePath()
    return try StoreFailure.map(path) {
      let store = try MeasurementStore(path: path, options: .reading)
      defer { store.close() }
      return try store.measurements(MeasurementQuery(since: day.start, until: day.end)).map(\.record)
    }
  }

  /// The measurements of an export file: the document `stressmon export --out x.json` writes (its
  /// `measurements` array), or a bare JSON array of `MeasurementRecord` (snake_case keys).
  static func readExport(_ path: String) throws -> [MeasurementRecord] {
    let bytes: [UInt8]
    do {
      guard let read = try AtomicFile.read(path) else {
        throw CLIFailure.noInput("--from-json \(path): no such file; give a file written by 'stressmon export'")
      }
      bytes = read
    } catch let error as FileError {
      throw CLIFailure.ioError("--from-json: \(error)")
    }
    do {
      let data = Data(bytes)
      if bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) == UInt8(ascii: "{") {
        return try JSONDecoder().decode(ExportDocument.self, from: data).measurements
      }
      return try JSONDecoder().decode([MeasurementRecord].self, from: data)
    } catch let error as DecodingError {
      throw CLIFailure.badData("--from-json \(path) is not a JSON array of measurements as 'stressmon export' "
        + "writes them: \(Self.reason(error))")
    } catch {
      throw CLIFailure.badData("--from-json \(path) is not valid JSON: \(error)")
    }
  }

  static func format(of path: String) throws -> String {
    let lower = path.lowercased()
    if lower.hasSuffix(".png") { return "png" }
    if lower.hasSuffix(".svg") { return "svg" }
    throw CLIFailure.usage("--out must end in .png or .svg, got '\(path)'")
  }

  /// A decoding error in one line: what was wrong and where (e.g. "[12].window_end: expected a number").
  private static func reason(_ error: DecodingError) -> String {
    func place(_ path: [any CodingKey]) -> String {
      path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      return (context.codingPath.isEmpty ? "" : place(context.codingPath) + ": ") + context.debugDescription
    case .keyNotFound(let key, let context):
      return "\(place(context.codingPath + [key])): missing"
    @unknown default:
      return "\(error)"
    }
  }
}

/// The JSON shape of `stressmon report --json`: the file written, and the day's numbers.
struct ReportOutput: Encodable {
  var out: String
  var format: String
  var width: Int
  var height: Int
  var bytes: Int
  var summary: DaySummary
}

/// The part of `stressmon export`'s JSON document the report reads; the upload columns are ignored.
private struct ExportDocument: Decodable {
  var measurements: [MeasurementRecord]
}
