import BoardParts
/// Turns a parsed board file into a `Board`, checking names, types and required keys. Unknown sections and keys
/// are errors (a typo like `sampel_rate` would otherwise be ignored silently), each naming the file and line.
public enum BoardLoader {
  // MARK: - Public

  /// Loads and checks a board file.
  public static func load(path: String) throws(ConfigError) -> Board {
    try board(from: TOMLParser.parse(contentsOf: path))
  }

  /// Checks a parsed board file. Relative paths in it (the emulator's recording) are resolved against the
  /// directory of `document.path`.
  public static func board(from document: TOMLDocument) throws(ConfigError) -> Board {
    let path = document.path
    let known = ["board", "i2c", "sensor", "gpio", "leds", "epaper"]
    for name in document.sectionNames where !known.contains(name) {
      let line = document[name]?.line ?? 1
      let message = name.isEmpty
        ? "keys must be inside a section ([board], [i2c], [sensor], [gpio], [leds], [epaper])"
        : "unknown section [\(name)] (known: \(known.map { "[\($0)]" }.joined(separator: ", ")))"
      throw .invalid(path: path, line: line, message: message)
    }

    var header = try Section(document, "board")
    let name = try header.string("name", required: true, hint: "e.g. name = \"rpi4\"")!
    let description = try header.string("description") ?? name
    let simulated = try header.bool("simulated") ?? false
    try header.finish()

    var sensorSection = try Section(document, "sensor")
    let sensor = try sensorSettings(&sensorSection, path: path)
    try sensorSection.finish()

    var i2c: I2CSettings?
    if sensor.part != .emulated && document["i2c"] == nil {
      throw .missing(path: path, section: "i2c", key: "bus", hint: "add [i2c] with bus = 1 for /dev/i2c-1")
    }
    if var section = Section.optional(document, "i2c") {
      let bus = try section.integer("bus", required: true, range: 0...255, hint: "bus = 1 for /dev/i2c-1")!
      i2c = I2CSettings(bus: bus, device: try section.string("device"))
      try section.finish()
    }

    var gpioSection = Section.optional(document, "gpio")
    let chipLabel = try gpioSection?.string("chip_label")
    try gpioSection?.finish()

    var ledsSection = Section.optional(document, "leds")
    let leds = try ledSettings(&ledsSection, path: path)
    try ledsSection?.finish()

    var epaperSection = Section.optional(document, "epaper")
    let epaper = try epaperSettings(&epaperSection, simulated: simulated, path: path)
    try epaperSection?.finish()

    let needsGPIO = leds.wiring != .none || epaper.panel != .none
    if needsGPIO && !simulated && chipLabel == nil {
      throw .missing(
        path: path, section: "gpio", key: "chip_label",
        hint: "LEDs and the e-paper panel need the GPIO chip's label ('gpiodetect' lists them; Pi 4: pinctrl-bcm2711, "
          + "Pi 5: pinctrl-rp1)")
    }
    return Board(
      name: name, description: description, path: path, simulated: simulated, i2c: i2c, sensor: sensor,
      gpio: GPIOSettings(chipLabel: chipLabel), leds: leds, epaper: epaper)
  }

  // MARK: - Private

  private static func sensorSettings(_ section: inout Section, path: String) throws(ConfigError) -> SensorSettings {
    let part = try section.choice("part", SensorPart.self, required: true)!
    let address = try section.integer("address", range: 0x03...0x77, hint: "a 7-bit address such as 0x57")
    var settings = SensorSettings(part: part, address: address.map(UInt8.init), path: path)
    settings.swapRedIR = try section.bool("swap_red_ir") ?? false
    settings.emulates = try section.choice("emulates", SensorPart.self)
    if let emulates = settings.emulates, !emulates.isMAX3010x {
      throw section.invalid("emulates", "the emulator presents a MAX3010x part: max30102, max30101 or max30105")
    }
    if let recording = try section.string("recording") {
      settings.recording = BoardCatalog.normalise(recording.hasPrefix("/") ? recording : directory(of: path) + "/" + recording)
    }
    settings.stallAfterSeconds = try section.number("stall_after_s", range: 0...1e9)
    if settings.stallAfterSeconds != nil && part != .emulated {
      throw section.invalid("stall_after_s", "only an emulated sensor can be told to stop answering")
    }
    if part == .emulated && settings.recording == nil {
      throw .missing(
        path: path, section: "sensor", key: "recording",
        hint: "the emulated sensor replays a recording, e.g. recording = \"../demo/bsn_bvp_rest.csv\"")
    }
    settings.leds = try section.integer("leds", range: 2...3, hint: "2 (red + IR) or 3 (red + IR + green)")
    settings.sampleRateHz = try section.integer("sample_rate_hz", range: 1...100_000)
    settings.averaging = try section.integer("averaging", range: 1...1024)
    settings.pulseWidthMicroseconds = try section.integer("pulse_width_us", range: 1...10_000)
    settings.adcRangeNanoamps = try section.integer("adc_range_na", range: 1...1_000_000)
    settings.ledCurrentMilliamps = try section.number("led_current_ma", range: 0...1000)
    settings.redCurrentMilliamps = try section.number("red_current_ma", range: 0...1000)
    settings.irCurrentMilliamps = try section.number("ir_current_ma", range: 0...1000)
    settings.greenCurrentMilliamps = try section.number("green_current_ma", range: 0...1000)
    settings.automaticLEDCurrent = try section.bool("auto_led_current")
    settings.channel = try section.integer("channel", range: 0...3, hint: "the ADS1x15 input AIN0-AIN3")
    settings.fullScaleVolts = try section.number("full_scale_v", range: 0...100)
    settings.dataRateSPS = try section.integer("data_rate_sps", range: 1...100_000)
    settings.outputRateHz = try section.number("output_rate_hz", range: 1...10_000)
    settings.lines = section.lines
    return settings
  }

  private static func ledSettings(_ section: inout Section?, path: String) throws(ConfigError) -> LEDSettings {
    guard section != nil else { return LEDSettings(wiring: .none, lines: [], activeLow: false) }
    let wiring = try section!.choice("wiring", LEDSettings.Wiring.self, required: true)!
    let lines = try section!.lineList("lines") ?? []
    let activeLow = try section!.bool("active_low") ?? false
    if lines.count != wiring.lineCount {
      let order: String
      switch wiring {
      case .rgb: order = "red, green, blue"
      case .bar: order = "relaxed, mild, moderate, high"
      case .single: order = "the LED"
      case .none: order = "none"
      }
      throw section!.invalid(
        section!.line(of: "lines") == nil ? "wiring" : "lines",
        "wiring '\(wiring.rawValue)' needs \(wiring.lineCount) line(s) (\(order)), got \(lines.count)")
    }
    return LEDSettings(wiring: wiring, lines: lines, activeLow: activeLow)
  }

  private static func epaperSettings(
    _ section: inout Section?, simulated: Bool, path: String
  ) throws(ConfigError) -> EPaperSettings {
    guard section != nil else { return EPaperSettings(panel: .none) }
    let panel = try section!.choice("panel", PanelModel.self, required: true)!
    var settings = EPaperSettings(panel: panel)
    settings.spi = try section!.string("spi")
    settings.dc = try section!.lineReference("dc")
    settings.rst = try section!.lineReference("rst")
    settings.busy = try section!.lineReference("busy")
    settings.pwr = try section!.lineReference("pwr")
    settings.output = try section!.string("output")
    guard panel != .none else { return settings }
    if simulated {
      if settings.output == nil { settings.output = "stressmon-panel.png" }
      return settings
    }
    for (key, present) in [("spi", settings.spi != nil), ("dc", settings.dc != nil), ("rst", settings.rst != nil),
                           ("busy", settings.busy != nil)] where !present {
      throw .missing(
        path: path, section: "epaper", key: key,
        hint: "a real panel needs spi, dc, rst and busy (Waveshare HAT: \"/dev/spidev0.0\", GPIO25, GPIO17, GPIO24)")
    }
    return settings
  }

  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}

/// The board loader reads its sections through the shared reader (also used by the daemon's config file).
private typealias Section = TOMLSectionReader
