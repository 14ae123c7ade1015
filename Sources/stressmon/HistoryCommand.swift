import ArgumentParser
import CommandSupport
import Platform
import Store
import StressModel

/// `stressmon history`: the stored measurement windows, as text, CSV or JSON.
struct HistoryCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "Show the stored measurements (one line per 10-s window result).",
    discussion: """
      Lists what the monitor stored: time, device, stress category and level, HRV and heart rate, confidence, \
      and whether the window is on the hub yet. Uncategorised windows (no contact, poor signal) show why.

      Times are shown in local time. Rows measured before the board's clock was synchronised are marked: \
      "corrected" once their time was recomputed from the monotonic clock, "clock not set" while waiting, \
      "clock unknown" when their boot ended without a synchronised clock (kept, never uploaded).

      DATE is ISO 8601: 2024-05-01 (local midnight), 2024-05-01T14:30, 2024-05-01T12:30:00Z or with an \
      offset such as +02:00. --since is inclusive, --until exclusive (on the window's end time).

      Examples:
        stressmon history --since 2024-05-01 --until 2024-05-02
        stressmon history --limit 20
        stressmon history --since 2024-05-01T08:00 --csv > morning.csv
      """
  )

  @Option(help: ArgumentHelp("Only windows ending at or after DATE.", valueName: "date"))
  var since: String?

  @Option(help: ArgumentHelp("Only windows ending before DATE.", valueName: "date"))
  var until: String?

  @Option(help: ArgumentHelp("At most N windows: the newest ones (still printed oldest first).", valueName: "n"))
  var limit: Int?

  @Flag(name: .long, help: "Print one JSON document on stdout.")
  var json = false

  @Flag(name: .long, help: "Print CSV (a header line, then one line per window) on stdout.")
  var csv = false

  @OptionGroup var database: DatabaseOption

  func run() throws {
    if json && csv { throw CLIFailure.usage("--json and --csv cannot be combined: pick one output format") }
    if let limit, limit < 1 { throw CLIFailure.usage("--limit needs a positive number of windows, got \(limit)") }
    let range = try DateRange(since: since, until: until)
    let store = try database.open()
    defer { store.close() }
    let rows = try StoreFailure.map(store.path) {
      if let limit {
        let newest = try store.measurements(
          MeasurementQuery(since: range.since, until: range.until, limit: limit, newestFirst: true))
        return Array(newest.reversed())
      }
      var all: [StoredMeasurement] = []
      try store.forEachPage(MeasurementQuery(since: range.since, until: range.until)) { all += $0 }
      return all
    }
    if json {
      try CLIOutput.json(MeasurementExport.JSONDocument(rows, since: range.since, until: range.until))
    } else if csv {
      CLIOutput.line(String(MeasurementExport.csv(rows).dropLast()))
    } else {
      printText(rows, range: range, path: store.path)
    }
  }

  private func printText(_ rows: [StoredMeasurement], range: DateRange, path: String) {
    guard let first = rows.first, let last = rows.last else {
      CLIOutput.line("No measurements \(range.text) in \(path).")
      return
    }
    var devices: [String: Int] = [:]
    for row in rows { devices[row.record.deviceId, default: 0] += 1 }
    let width = min(Self.maxDeviceWidth, devices.keys.map(\.count).max() ?? 0)
    for row in rows { CLIOutput.line(Self.line(row, deviceWidth: width)) }
    var counts: [String: Int] = [:]
    for row in rows { counts[row.upload.name, default: 0] += 1 }
    let notes = [
      ("uploaded", "uploaded"), ("pending", "waiting for upload"), ("waiting_for_clock", "waiting for the clock"),
      ("clock_unresolved", "with an unknown clock (kept, not uploaded)"), ("quarantined", "refused by the hub"),
    ].compactMap { key, text in counts[key].map { "\($0) \(text)" } }
    CLIOutput.line(
      "\(counted(rows.count, "window")) of \(Self.deviceList(devices)) "
        + "from \(ISO8601Time.formatLocal(first.record.windowEnd)) to "
        + "\(ISO8601Time.formatLocal(last.record.windowEnd)): " + notes.joined(separator: ", ") + ".")
    if devices.count > 1 {
      CLIOutput.error(
        "warning: \(path) holds the windows of \(devices.count) devices; one database should hold one wearer's "
          + "(give each device its own --db)")
    }
  }

  /// "device demo" or "devices alice (5), bob (5)".
  static func deviceList(_ devices: [String: Int]) -> String {
    guard devices.count > 1 else { return "device " + (devices.keys.first ?? "?") }
    return "devices " + devices.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
  }

  /// Widest device column in the text listing (longer ids are shown whole, shifting their line).
  static let maxDeviceWidth = 20

  /// One window as a line: time, device, category (name and level), HRV, HR, confidence, clock and upload notes.
  static func line(_ row: StoredMeasurement, deviceWidth: Int = 0) -> String {
    let r = row.record
    var text = ISO8601Time.formatLocal(r.windowEnd) + "  " + pad(r.deviceId, deviceWidth) + " "
    if let category = r.category, let level = r.stressLevel {
      text += pad(category.rawValue, 9) + pad(level.formatted(decimals: 0), 4)
    } else {
      text += pad("-", 9) + pad("-", 4)
    }
    if r.quality.isCategorised, let hrv = r.sdnnMs, let hr = r.heartRateBpm {
      text += pad("HRV \(hrv.formatted(decimals: 1)) ms", 14) + pad("HR \(hr.formatted(decimals: 0)) bpm", 11)
      text += "conf " + r.confidence.formatted(decimals: 2)
    } else {
      text += pad(r.quality.displayText, 34)
    }
    switch row.clockState {
    case .synchronised: break
    case .corrected: text += "  [time corrected]"
    case .waiting: text += "  [clock not set]"
    case .unresolved: text += "  [clock unknown]"
    }
    switch row.upload {
    case .pending: text += "  pending"
    case .uploaded: text += "  uploaded"
    case .quarantined(let reason, _): text += "  refused by hub: \(reason)"
    case .waitingForClock, .clockUnresolved: break
    }
    return text
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
  }
}

// MARK: - Shared by history, export and baseline

/// `--db PATH`, with the documented default, and the way the store commands open it.
struct DatabaseOption: ParsableArguments {
  @Option(
    name: .customLong("db"),
    help: ArgumentHelp(
      "The database file (default /var/lib/stressmon/stressmon.db as root, else "
        + "$XDG_DATA_HOME/stressmon/stressmon.db or ~/.local/share/stressmon/stressmon.db).", valueName: "path"))
  var path: String?

  var resolvedPath: String { path ?? StorePaths.defaultDatabasePath() }

  /// Opens an existing database for reading only: commands that read never create or change the file.
  func open() throws -> MeasurementStore {
    let path = resolvedPath
    return try StoreFailure.map(path) { try MeasurementStore(path: path, options: .reading) }
  }

  /// Opens an existing database for writing (migrating it if needed), never creating one.
  func openForWriting() throws -> MeasurementStore {
    let path = resolvedPath
    return try StoreFailure.map(path) {
      try MeasurementStore(path: path, options: MeasurementStore.Options(create: false, reserveBytes: 0))
    }
  }
}

/// Store errors as CLI failures: one line, a sysexits code by category.
enum StoreFailure {
  static func map<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as StoreError {
      throw failure(error)
    }
  }

  static func failure(_ error: StoreError) -> CLIFailure {
    switch error {
    case .missing, .cannotOpen: .noInput(error.description)
    case .corrupt, .notAStressmonDatabase, .newerSchema, .invalid: .badData(error.description)
    case .busy, .inUse: .unavailable(error.description)
    case .diskFull, .readOnly, .io: .ioError(error.description)
    case .sqlite, .closed: .internalError(error.description)
    }
  }
}

/// `--since` / `--until` parsed and checked.
struct DateRange {
  var since: Double?
  var until: Double?

  init(since: String?, until: String?) throws {
    self.since = try since.map { try Self.parse($0, flag: "--since") }
    self.until = try until.map { try Self.parse($0, flag: "--until") }
    if let start = self.since, let end = self.until, start >= end {
      throw CLIFailure.usage("--since must be before --until (got \(since ?? "") and \(until ?? ""))")
    }
  }

  /// "between A and B", "since A", … for messages.
  var text: String {
    switch (since, until) {
    case (let s?, let u?): "between \(ISO8601Time.formatLocal(s)) and \(ISO8601Time.formatLocal(u))"
    case (let s?, nil): "since \(ISO8601Time.formatLocal(s))"
    case (nil, let u?): "before \(ISO8601Time.formatLocal(u))"
    case (nil, nil): "in total"
    }
  }

  static func parse(_ text: String, flag: String) throws -> Double {
    guard let value = ISO8601Time.parse(text) else {
      throw CLIFailure.usage(
        "\(flag) '\(text)' is not an ISO 8601 date or time: use e.g. 2024-05-01, 2024-05-01T14:30 or "
          + "2024-05-01T12:30:00Z")
    }
    return value
  }
}
