import ArgumentParser
import CommandSupport
import Indicators
import Platform
import Raster
import StressModel

/// `stressmon render`: draws what the e-ink panel would show, to a PNG or PBM file, without a panel.
struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Draw the e-ink panel's picture for a category to a PNG or PBM file (preview, kiosk, docs).",
    discussion: """
      The panel shows the category so that it reads without colour: an icon (relaxed leaf, mild circle, \
      moderate triangle, high square) filled with a pattern (solid, diagonal lines, dots, crosshatch), the \
      category name, the stress level (0-100), HRV and heart rate, the time of the measurement and a status line.

      Panels (pixels in reading orientation):
        waveshare-2in13-v4   250×122   Waveshare 2.13" V4 (SSD1680)
        waveshare-2in9-v2    296×128   Waveshare 2.9" V2 (SSD1680)
        waveshare-1in54-v2   200×200   Waveshare 1.54" V2 (SSD1681)

      The file type follows the extension of --out: .png (1-bit greyscale) or .pbm (Netpbm P4).

      Examples:
        stressmon render --category moderate --level 62 --hrv 31 --hr 84 --panel waveshare-2in13-v4 --out now.png
        stressmon render --category relaxed --panel waveshare-1in54-v2 --status learning:12/30 --out preview.pbm
      """
  )

  @Option(name: .long, help: ArgumentHelp("The stress category to show.", valueName: "category"))
  var category: StressCategory

  @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
    "Stress level 0-100 inside the category's range (default: the middle of the range).", valueName: "n"),
    transform: OptionParse.number("points", 0...100))
  var level: Double?

  @Option(
    name: .long, parsing: .unconditional, help: ArgumentHelp("HRV (SDNN) in ms to show (1-1000).", valueName: "ms"),
    transform: OptionParse.number("ms", StressCalculator.acceptedHRVMs))
  var hrv: Double?

  @Option(
    name: .long, parsing: .unconditional, help: ArgumentHelp("Heart rate in bpm to show (20-300).", valueName: "bpm"),
    transform: OptionParse.number("bpm", StressCalculator.acceptedHeartRateBpm))
  var hr: Double?

  @Option(name: .long, help: ArgumentHelp("The e-paper panel whose layout to draw.", valueName: "name"))
  var panel: EPaperModel

  @Option(name: .long, help: ArgumentHelp("Output file, .png or .pbm.", valueName: "file"))
  var out: String

  @Option(name: .long, help: ArgumentHelp(
    "Time of the measurement to show, HH:MM (default: now, local time).", valueName: "hh:mm"),
    transform: RenderCommand.parseTime)
  var time: ClockTime?

  @Option(name: .long, help: ArgumentHelp(
    "Status line item, repeatable: no-contact, learning[:N/M], offline:N (unsynced rows), disk-full:N (rows lost), "
      + "clock.",
    valueName: "status"),
    transform: RenderCommand.parseStatus)
  var status: [PanelStatus] = []

  @Option(name: .long, help: ArgumentHelp("Enlarge the picture N times (1-8) for documents.", valueName: "n"))
  var scale: Int = 1

  @Flag(name: .long, help: "Print one JSON object describing the file on stdout.")
  var json = false

  func validate() throws {
    guard (1...8).contains(scale) else { throw ValidationError("--scale must be 1-8, got \(scale)") }
    _ = try Self.format(of: out)
    _ = try checkedLevel(category)
  }

  func run() throws {
    let model = panel
    let format = try Self.format(of: out)
    let content = PanelContent(
      category: category, level: try checkedLevel(category), hrvMs: hrv, heartRateBpm: hr,
      measuredAt: time ?? ClockTime.now(), status: status)
    let rendered = PanelLayout.render(content, width: model.layoutWidth, height: model.layoutHeight)
    let image = rendered.image.scaled(by: scale)
    let bytes = format == "png"
      ? PNGEncoder.encode(image)
      : PBMCodec.encode(image, comments: ["stressmon render \(model.name) \(category.rawValue)"])
    do {
      try AtomicFile.write(bytes, to: out)
    } catch {
      throw CLIFailure.cannotCreate("cannot write \(error); check that the directory exists and is writable")
    }
    if json {
      try CLIOutput.json(RenderOutput(
        out: out, format: format, panel: model.name, width: image.width, height: image.height,
        category: category.rawValue, icon: category.icon.rawValue, pattern: category.pattern.rawValue,
        level: content.level.map { Int($0.rounded()) }, bytes: bytes.count,
        alt: category.accessibilityText))
    } else {
      CLIOutput.line("Wrote \(out): \(model.title), \(image.width)×\(image.height), \(category.accessibilityText)")
    }
  }

  // MARK: - Parsing

  /// --level, which must lie in --category's range (both parsed by then); the middle of the range without it.
  private func checkedLevel(_ category: StressCategory) throws(ValidationError) -> Double {
    let range = category.levelRange
    guard let value = level else { return range.lower + 12 }
    let found = StressCategory(level: value)
    guard found == category else {
      let text = value.formatted(decimals: value == value.rounded() ? 0 : 1)
      throw ValidationError(
        "--level \(text) is '\(found.rawValue)', not '\(category.rawValue)': give a level from "
          + "\(range.lower.formatted(decimals: 0)) to \(category == .high ? "" : "below ")"
          + "\(range.upper.formatted(decimals: 0)), or leave --level out")
    }
    return value
  }

  static func parseTime(_ text: String) throws -> ClockTime {
    guard let parsed = ClockTime(text) else { throw ValidationError("it needs HH:MM (24-hour), e.g. 07:30") }
    return parsed
  }

  static func parseStatus(_ text: String) throws -> PanelStatus {
    let parts = text.lowercased().split(separator: ":", maxSplits: 1).map(String.init)
    switch parts.first {
    case "no-contact": return .noContact
    case "clock": return .clockUnsynchronised
    case "learning":
      guard parts.count == 2 else { return .learningBaseline(windows: nil, needed: nil) }
      let numbers = parts[1].split(separator: "/").compactMap { Int($0) }
      guard numbers.count == 2, numbers[0] >= 0, numbers[1] > 0 else {
        throw ValidationError("learning:N/M needs two whole numbers, e.g. learning:12/30")
      }
      return .learningBaseline(windows: numbers[0], needed: numbers[1])
    case "offline":
      guard parts.count == 2, let count = Int(parts[1]), count >= 0 else {
        throw ValidationError("offline:N needs the number of unsynced measurements, e.g. offline:12")
      }
      return .offline(unsynced: count)
    case "disk-full":
      guard parts.count == 2, let count = Int(parts[1]), count >= 0 else {
        throw ValidationError(
          "disk-full:N needs the number of measurements lost, e.g. disk-full:3")
      }
      return .diskFull(dropped: count)
    default:
      throw ValidationError(
        "give no-contact, learning[:N/M], offline:N, disk-full:N or clock")
    }
  }

  static func format(of path: String) throws(ValidationError) -> String {
    let lower = path.lowercased()
    if lower.hasSuffix(".png") { return "png" }
    if lower.hasSuffix(".pbm") { return "pbm" }
    throw ValidationError("--out must end in .png or .pbm, got '\(path)'")
  }
}

/// The JSON shape of `stressmon render --json`.
struct RenderOutput: Encodable {
  var out: String
  var format: String
  var panel: String
  var width: Int
  var height: Int
  var category: String
  var icon: String
  var pattern: String
  var level: Int?
  var bytes: Int
  var alt: String
}
