import Config
import FoundationEssentials
import TestSupport
import Testing

@Suite("Board files")
struct BoardTests {
  static let boardsDirectory = SharedData.repositoryRoot + "/boards"
  static let shipped = ["rpi3", "rpi4", "rpi5", "rpizero2w", "sim"]

  @Test("Every shipped board file parses", arguments: shipped)
  func shippedBoardParses(name: String) throws {
    // When
    let board = try BoardLoader.load(path: Self.boardsDirectory + "/\(name).toml")
    // Then
    #expect(board.name == name)
    #expect(!board.description.isEmpty)
    if name == "sim" {
      #expect(board.simulated)
      #expect(board.sensor.part == .emulated)
      #expect(board.sensor.emulates == .max30102)
      let recording = try #require(board.sensor.recording)
      #expect(recording.hasSuffix("/demo/bsn_bvp_rest.csv"))
      #expect(!recording.contains("/../"))
      #expect(FileManager.default.fileExists(atPath: recording))
      #expect(board.epaper.output != nil)
    } else {
      #expect(!board.simulated)
      #expect(board.i2c == I2CSettings(bus: 1))
      #expect(board.i2c?.device == "/dev/i2c-1")
      #expect(board.sensor.part == .max30102)
      #expect(board.sensor.address == 0x57)
      #expect(board.gpio.chipLabel?.hasPrefix("pinctrl-") == true)
      #expect(board.leds.lines.count == board.leds.wiring.lineCount)
      #expect(board.epaper.spi == "/dev/spidev0.0")
      #expect(board.epaper.dc == .name("GPIO25"))
    }
  }

  @Test("The shipped boards name their GPIO chips by the labels their kernels use")
  func chipLabels() throws {
    let labels = try Self.shipped.filter { $0 != "sim" }.map {
      try BoardLoader.load(path: Self.boardsDirectory + "/\($0).toml").gpio.chipLabel
    }
    #expect(labels == ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1", "pinctrl-bcm2835"])
  }

  @Test("Sensor settings keep the line they were written on, for later errors")
  func sensorLines() throws {
    let board = try BoardLoader.load(path: Self.boardsDirectory + "/rpi4.toml")
    #expect(board.sensor.sampleRateHz == 400)
    #expect(board.sensor.averaging == 4)
    #expect(board.sensor.ledCurrentMilliamps == 7.0)
    let location = board.sensor.location(of: "sample_rate_hz")
    #expect(location.hasPrefix(Self.boardsDirectory + "/rpi4.toml:"))
    let line = Int(location.split(separator: ":").last ?? "") ?? 0
    let text = try String(contentsOfFile: Self.boardsDirectory + "/rpi4.toml", encoding: .utf8)
    #expect(text.split(separator: "\n", omittingEmptySubsequences: false)[line - 1].hasPrefix("sample_rate_hz"))
  }

  static let minimal = """
    [board]
    name = "test"
    [i2c]
    bus = 1
    [sensor]
    part = "max30102"
    """

  @Test("A wrong board file is an error naming the file and the line", arguments: [
    (minimal + "\nsampel_rate = 400", 7, "unknown key 'sampel_rate'"),
    (minimal + "\n[lights]\nwiring = \"rgb\"", 7, "unknown section [lights]"),
    (minimal + "\naddress = \"0x57\"", 7, "must be a whole number"),
    (minimal + "\naddress = 0x99", 7, "outside"),
    (minimal + "\nswap_red_ir = 1", 7, "true or false"),
    (minimal.replacingOccurrences(of: "max30102", with: "max31000"), 6, "unknown 'max31000'"),
    (minimal + "\n[gpio]\nchip_label = \"pinctrl-bcm2711\"\n[leds]\nwiring = \"rgb\"\nlines = [\"GPIO5\"]", 11, "needs 3 line(s)"),
    (minimal + "\n[leds]\nwiring = \"rgb\"\nlines = [\"GPIO5\", true, 3]", 9, "line names"),
    (minimal + "\n[epaper]\npanel = \"waveshare-7in5\"", 8, "unknown 'waveshare-7in5'"),
    ("name = \"x\"\n[board]\nname = \"y\"", 1, "inside a section"),
  ])
  func invalid(text: String, line: Int, words: String) throws {
    let directory = try TemporaryDirectory("board")
    defer { directory.remove() }
    let path = try directory.write("bad.toml", text)
    let error = #expect(throws: ConfigError.self) { try BoardLoader.load(path: path) }
    #expect(error?.description.hasPrefix("\(path):\(line): ") == true, "\(String(describing: error))")
    #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    #expect(error?.sysexitCode == 65)
  }

  @Test("Missing sections and keys name the file, the section and what to add", arguments: [
    ("[board]\nname = \"x\"", "[sensor]"),
    ("[board]\nname = \"x\"\n[sensor]\npart = \"max30102\"", "[i2c]"),
    ("[board]\n[i2c]\nbus = 1\n[sensor]\npart = \"max30102\"", "'name'"),
    (minimal + "\n[leds]\nwiring = \"single\"\nlines = [5]", "chip_label"),
    (minimal + "\n[gpio]\nchip_label = \"x\"\n[epaper]\npanel = \"waveshare-2in9-v2\"", "'spi'"),
    ("[board]\nname = \"x\"\n[sensor]\npart = \"emulated\"", "'recording'"),
  ])
  func missing(text: String, words: String) throws {
    let directory = try TemporaryDirectory("board")
    defer { directory.remove() }
    let path = try directory.write("incomplete.toml", text)
    let error = #expect(throws: ConfigError.self) { try BoardLoader.load(path: path) }
    #expect(error?.description.hasPrefix(path + ": ") == true, "\(String(describing: error))")
    #expect(error?.description.contains(words) == true, "\(String(describing: error))")
  }

  @Test("Boards are found by name from the repository of the executable, whatever the working directory")
  func catalogFromExecutable() throws {
    // Given: an executable somewhere under the repository's build directory.
    let catalog = BoardCatalog.standard(
      environment: [:], executablePath: SharedData.repositoryRoot + "/.build/debug/stressmon")
    // Then
    #expect(catalog.directories.first == Self.boardsDirectory)
    #expect(try catalog.resolve("rpi5") == Self.boardsDirectory + "/rpi5.toml")
    #expect(Set(Self.shipped).isSubset(of: Set(catalog.availableBoards())))
    #expect(try catalog.load("sim").name == "sim")
  }

  @Test("STRESSMON_BOARDS comes first; a path is taken as a path")
  func catalogEnvironmentAndPaths() throws {
    let directory = try TemporaryDirectory("boards")
    defer { directory.remove() }
    _ = try directory.write("rpi4.toml", Self.minimal.replacingOccurrences(of: "\"test\"", with: "\"mine\""))
    let catalog = BoardCatalog.standard(
      environment: ["STRESSMON_BOARDS": directory.path], executablePath: SharedData.repositoryRoot + "/.build/x/stressmon")
    #expect(try catalog.load("rpi4").name == "mine")
    #expect(try catalog.load(Self.boardsDirectory + "/rpi4.toml").name == "rpi4")
    let missing = #expect(throws: ConfigError.self) { try catalog.resolve("./nope.toml") }
    #expect(missing == .notFound(path: "./nope.toml"))
  }

  @Test("An unknown board name lists the boards there are and where it looked")
  func unknownName() {
    let catalog = BoardCatalog(directories: [Self.boardsDirectory])
    let error = #expect(throws: ConfigError.self) { try catalog.resolve("rpi9") }
    #expect(error?.description.contains("no board named 'rpi9'") == true)
    #expect(error?.description.contains("rpizero2w") == true)
    #expect(error?.description.contains(Self.boardsDirectory) == true)
    #expect(error?.sysexitCode == 66)
  }

  @Test("The board is recognised from the device tree's model string")
  func detection() throws {
    let directory = try TemporaryDirectory("model")
    defer { directory.remove() }
    let cases = [
      ("Raspberry Pi 4 Model B Rev 1.4\0", "rpi4"), ("Raspberry Pi 5 Model B Rev 1.0\0", "rpi5"),
      ("Raspberry Pi Zero 2 W Rev 1.0\0", "rpizero2w"), ("Raspberry Pi 3 Model B Plus Rev 1.3\0", "rpi3"),
    ]
    for (model, name) in cases {
      #expect(BoardCatalog.detectedBoardName(modelPath: try directory.write("model", model)) == name)
    }
    #expect(BoardCatalog.detectedBoardName(modelPath: directory.file("absent")) == nil)
  }
}
