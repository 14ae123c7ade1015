import ArgumentParser
import CommandSupport
import FoundationEssentials
import Platform
import Store

/// `stressmon export`: the stored measurements to a CSV or JSON file, streamed page by page.
struct ExportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write the stored measurements to a CSV or JSON file.",
    discussion: """
      The format follows the file name: .csv gives a header line and one line per window (times in ISO 8601 \
      UTC); .json gives one document {"measurements": [...], "count": N} with the same fields as the sync \
      protocol (times in Unix seconds) plus the clock and upload state of each row.

      The file is written next to its final name and renamed when complete, so a half-written export never \
      appears under FILE. An existing FILE is only replaced with --force.

      Examples:
        stressmon export --out may.csv --since 2024-05-01 --until 2024-06-01
        stressmon export --out all.json --db /var/lib/stressmon/stressmon.db
      """
  )

  @Option(help: ArgumentHelp("The file to write: FILE.csv or FILE.json.", valueName: "file"))
  var out: String

  @Option(help: ArgumentHelp("Only windows ending at or after DATE (ISO 8601).", valueName: "date"))
  var since: String?

  @Option(help: ArgumentHelp("Only windows ending before DATE (ISO 8601).", valueName: "date"))
  var until: String?

  @Flag(help: "Replace FILE if it exists.")
  var force = false

  @Flag(name: .long, help: "Print a JSON summary (path, format, count) on stdout instead of a sentence.")
  var json = false

  @OptionGroup var database: DatabaseOption

  enum Format: String { case csv, json }

  func run() throws {
    let lower = out.lowercased()
    guard let format = lower.hasSuffix(".csv") ? Format.csv : lower.hasSuffix(".json") ? Format.json : nil else {
      throw CLIFailure.usage("--out '\(out)' must end in .csv or .json (the extension picks the format)")
    }
    let range = try DateRange(since: since, until: until)
    if !force && access(out, F_OK) == 0 {
      throw CLIFailure.cannotCreate("\(out) already exists: pass --force to replace it, or choose another name")
    }
    let store = try database.open()
    defer { store.close() }
    let temporary = out + ".partial-\(getpid())"
    guard let file = fopen(temporary, "w") else {
      throw CLIFailure.cannotCreate("cannot create \(temporary): \(String(cString: strerror(errno))); check the directory")
    }
    var count = 0
    var devices: [String: Int] = [:]
    do {
      let sink = FileSink(file: file, path: temporary)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      try sink.write(format == .csv ? MeasurementExport.csvColumns.joined(separator: ",") + "\n" : "{\"measurements\":[\n")
      try StoreFailure.map(store.path) {
        try store.forEachPage(MeasurementQuery(since: range.since, until: range.until)) { page in
          var text = ""
          for row in page {
            devices[row.record.deviceId, default: 0] += 1
            if format == .csv {
              text += MeasurementExport.csvLine(row) + "\n"
            } else {
              text += (count > 0 ? ",\n" : "") + String(decoding: try encoder.encode(MeasurementExport.JSONRow(row)), as: UTF8.self)
            }
            count += 1
          }
          try sink.write(text)
        }
      }
      if format == .json { try sink.write("\n],\"count\":\(count)}\n") }
      try sink.finish()
    } catch {
      fclose(file)
      unlink(temporary)
      throw error
    }
    guard rename(temporary, out) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw CLIFailure.cannotCreate("cannot move the export into place as \(out): \(reason)")
    }
    if json {
      try CLIOutput.json(ExportSummary(path: out, format: format.rawValue, count: count, devices: devices))
    } else {
      let scope = range.since == nil && range.until == nil ? "" : " " + range.text
      let of = devices.isEmpty ? "" : " of " + HistoryCommand.deviceList(devices)
      CLIOutput.line("Exported \(counted(count, "measurement"))\(of)\(scope) to \(out) (\(format.rawValue)).")
    }
  }
}

/// The `--json` summary of an export.
struct ExportSummary: Encodable {
  var path: String
  var format: String
  var count: Int
  /// Rows per device id.
  var devices: [String: Int]
}

/// Buffered writes to an open C stream, with errors (disk full) reported as one CLI failure.
struct FileSink {
  let file: UnsafeMutablePointer<FILE>
  let path: String

  func write(_ text: String) throws {
    var text = text
    let written = text.withUTF8 { fwrite($0.baseAddress, 1, $0.count, file) }
    if written != text.utf8.count { throw failure() }
  }

  /// Flushes, syncs and closes: the data is on disk before the rename makes it visible.
  func finish() throws {
    guard fflush(file) == 0, fsync(fileno(file)) == 0 else {
      let error = failure()
      fclose(file)
      throw error
    }
    guard fclose(file) == 0 else { throw failure() }
  }

  private func failure() -> CLIFailure {
    CLIFailure.ioError("cannot write \(path): \(String(cString: strerror(errno))); free some space or choose another place")
  }
}
