import Config
import Foundation
import Monitor
import Store
import Testing
import TestSupport

@Suite("Daemon configuration: file, defaults, flags")
struct ConfigurationTests {
  @Test("every key of the file is read, and the mode picks the defaults of the keys it leaves out")
  func fileValuesAndModeDefaults() throws {
    // Given a wearable configuration that sets some keys
    let text = """
      [device]
      id = "wrist-7"
      mode = "wearable"
      board = "sim"
      assume_clock_synchronised = true
      release_startup_memory = false

      [measurement]
      source = "synthetic"
      window_s = 120
      step_s = 30

      [store]
      db = "/data/w.db"
      durability = "normal"
      retention_days = 30
      retention_ibi_days = 7
      max_db_mb = 256

      [sync]
      hub = "https://hub.example:8443"
      token_file = "/etc/stressmon/wrist.token"
      ca_file = "/etc/stressmon/ca.pem"
      interval_s = 600

      [display]
      leds = false
      breathing_pacer = true
      panel_min_refresh_s = 300
      panel_state = "/data/panel.pbm"

      [kiosk]
      device = "desk-1"
      hub = "http://hub.local:8080"
      poll_s = 5
      stale_after_s = 120
      """
    // When it is read
    let config = try MonitorConfigurationLoader.configuration(from: TOMLParser.parse(text, path: "w.toml"))

    // Then the file's values are used
    #expect(config.device.id == "wrist-7" && config.device.mode == .wearable && config.device.board == "sim")
    #expect(config.device.assumeClockSynchronised == true && !config.device.releaseStartupMemory)
    #expect(config.measurement.source == "synthetic")
    #expect(config.measurement.windowSeconds == 120 && config.measurement.stepSeconds == 30)
    #expect(config.store.database == "/data/w.db" && config.store.durability == .normal)
    #expect(config.retention.ibiMaxAgeSeconds == 7 * 86_400 && config.retention.maxDatabaseBytes == 256 << 20)
    #expect(config.sync.hub == "https://hub.example:8443" && config.sync.intervalSeconds == 600)
    #expect(config.sync.caFile == "/etc/stressmon/ca.pem")
    #expect(!config.display.leds && config.display.panel && config.display.breathingPacer)
    #expect(config.display.panelMinimumRefreshSeconds == 300 && config.panelStatePath == "/data/panel.pbm")
    #expect(config.kiosk.device == "desk-1" && config.kiosk.pollSeconds == 5 && config.kiosk.staleAfterSeconds == 120)
    // and what it leaves out comes from the wearable defaults, which differ from the desk's
    let wearable = MonitorConfiguration.defaults(mode: .wearable)
    let desk = MonitorConfiguration.defaults(mode: .desk)
    #expect(config.store.flushSeconds == wearable.store.flushSeconds)
    #expect(config.display.panelOnCategoryChangeOnly == wearable.display.panelOnCategoryChangeOnly)
    #expect(wearable.store.flushSeconds > desk.store.flushSeconds)
    #expect(wearable.sync.intervalSeconds > desk.sync.intervalSeconds)
    #expect(wearable.display.panelOnCategoryChangeOnly && !desk.display.panelOnCategoryChangeOnly)
  }

  @Test("a mode flag wins over the file's mode and brings that mode's defaults")
  func modeFlagWins() throws {
    let document = try TOMLParser.parse("[device]\nmode = \"wearable\"\n", path: "m.toml")
    let config = try MonitorConfigurationLoader.configuration(from: document, mode: .desk)
    #expect(config.device.mode == .desk)
    #expect(config.store.flushSeconds == MonitorConfiguration.defaults(mode: .desk).store.flushSeconds)
  }

  @Test("mistakes are refused with the file and the line", arguments: [
    ("[device]\nid = \"a\"\ncolour = \"red\"\n", 3, "unknown key 'colour'"),
    ("[devices]\nid = \"a\"\n", 1, "unknown section [devices]"),
    ("[measurement]\nwindow_s = \"60\"\n", 2, "window_s must be a number"),
    ("[measurement]\nwindow_s = 5\n", 2, "outside 10.0...3600.0"),
    ("[measurement]\nwindow_s = 30\nstep_s = 40\n", 3, "must not exceed window_s"),
    ("[device]\nid = \"has space\"\n", 2, "must be 1-64 characters"),
    ("[device]\nmode = \"office\"\n", 2, "unknown 'office'"),
    ("[sync]\nhub = \"ftp://x\"\n", 2, "must start with https://"),
    ("[store]\ndurability = \"maybe\"\n", 2, "must be full or normal"),
    ("[measurement]\nsource = \"camera\"\n", 2, "must be board"),
    ("id = \"x\"\n", 1, "keys must be inside a section"),
  ])
  func refusedWithLine(text: String, line: Int, message: String) throws {
    let error = #expect(throws: ConfigError.self) {
      try MonitorConfigurationLoader.configuration(from: TOMLParser.parse(text, path: "bad.toml"))
    }
    let description = error?.description ?? ""
    #expect(description.hasPrefix("bad.toml:\(line): "), "\(description)")
    #expect(description.contains(message), "\(description)")
    #expect(error?.sysexitCode == 65)
  }

  @Test(
    "the printed configuration reads back as the same configuration, for every mode",
    arguments: MonitorMode.allCases)
  func printedReadsBack(mode: MonitorMode) throws {
    // Given a configuration with values that need quoting and fractions
    var config = MonitorConfiguration.defaults(mode: mode)
    config.store.database = "/var/lib/stressmon/a \"quoted\" name.db"
    config.store.flushSeconds = 2.5
    config.kiosk.device = "desk-1"
    config.kiosk.hub = "https://hub.local:8443"
    config.device.assumeClockSynchronised = mode == .kiosk ? true : nil

    // When it is printed and parsed again
    let text = config.commentedTOML(header: "test")
    let parsed = try MonitorConfigurationLoader.configuration(from: TOMLParser.parse(text, path: "printed.toml"))

    // Then nothing changed, and every line is a comment, a section, a key or blank
    #expect(parsed == config)
    for line in text.split(separator: "\n") {
      #expect(line.hasPrefix("#") || line.hasPrefix("[") || line.contains(" = "), "\(line)")
    }
  }

  @Test("stressmon run --print-config writes a file that --config accepts, with the board and flags in it")
  func printConfigCommand() throws {
    // Given a printed configuration for the wearable on the Pi Zero, with a database flag
    let directory = try TemporaryDirectory("print-config")
    defer { directory.remove() }
    let printed = try CLIRunner.run(
      ["run", "--print-config", "--board", "rpizero2w", "--mode", "wearable", "--db", "/srv/w.db",
       "--device", "wrist-1"])
    #expect(printed.status == 0, "\(printed.stderr)")
    #expect(printed.stdout.contains("board = \"rpizero2w\""))
    #expect(printed.stdout.contains("mode = \"wearable\""))
    #expect(printed.stdout.contains("db = \"/srv/w.db\""))
    #expect(printed.stdout.contains("id = \"wrist-1\""))
    // When it is read back through --config and printed again
    let file = try directory.write("w.toml", printed.stdout)
    let again = try CLIRunner.run(["run", "--print-config", "--config", file])
    // Then it is the same file
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout == printed.stdout)
  }

  @Test("bad flags and files end with one line and the sysexits code")
  func commandErrors() throws {
    let directory = try TemporaryDirectory("run-errors")
    defer { directory.remove() }
    let bad = try directory.write("bad.toml", "[device]\nid = \"x\"\nspeed = 3\n")
    let cases: [([String], Int32, String)] = [
      (["run", "--mode", "office"], 64, "'office' is invalid for '--mode <mode>'"),
      (["run", "--config", bad], 65, "bad.toml:3: unknown key 'speed'"),
      (["run", "--config", directory.file("missing.toml")], 66, "no such file"),
      (
        ["run", "--board", "sim", "--speed", "fast"], 64,
        "'fast' is invalid for '--speed <speed>': give realtime, max or a factor"
      ),
      (["run", "--board", "sim", "--speed", "max", "--db", directory.file("x.db")], 64, "needs --duration"),
      (["run", "--board", "rpi4", "--speed", "10", "--db", directory.file("x.db")], 64, "needs a simulated board"),
      (["run", "--board", "nosuchboard"], 66, "no board named 'nosuchboard'"),
      (["run", "--mode", "kiosk", "--board", "sim"], 64, "kiosk mode needs the device to show"),
      (["run", "--board", "sim", "--source", "replay:" + directory.file("none.csv"), "--db", directory.file("x.db")],
       66, "none.csv"),
    ]
    for (arguments, code, message) in cases {
      let result = try CLIRunner.run(arguments, workingDirectory: directory.path)
      #expect(result.status == code, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("stressmon:") }.count == 1, "\(result.stderr)")
    }
  }

  @Test("without hardware the real board fails at once with the fix, exit 69")
  func realBoardWithoutHardware() throws {
    let directory = try TemporaryDirectory("run-rpi4")
    defer { directory.remove() }
    let result = try CLIRunner.run(["run", "--board", "rpi4", "--db", directory.file("x.db")])
    #expect(result.status == 69, "\(result.stderr)")
    let message = result.stderr
    #expect(message.contains("GPIO chip 'pinctrl-bcm2711'") || message.contains("/dev/"), "\(message)")
    #expect(message.contains("[display] leds = false") || message.contains("raspi-config"), "\(message)")
  }
}
