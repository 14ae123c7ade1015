import ArgumentParser
import BoardParts
import CommandSupport
import Config
import LinuxIO
import Monitor
import Platform
import Sensors

/// `stressmon doctor`: checks the board's hardware one item at a time and says how to fix what fails.
struct DoctorCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "doctor",
    abstract: "Check the board's hardware: I2C bus, permissions, sensor, GPIO lines and the e-paper SPI node.",
    discussion: """
      Runs every check and prints each with PASS, FAIL or SKIP, and for each failure the fix. Checks:
        i2c bus          the I2C device node (e.g. /dev/i2c-1) exists and opens
        group i2c        you may use it (root, or a member of group i2c)
        kernel driver    the kernel's own max30102 driver has not claimed the sensor
        i2c adapter      the adapter can read the sensor's FIFO: plain I2C, or SMBus I2C-block reads (SMBus-only)
        sensor identity  the sensor answers with the right part id (MAX3010x: 0x15 in register 0xFF)
        sample rate      samples arrive at the configured rate (measured for 2 s)
        gpio chip        the GPIO chip named by label in the board file exists
        gpio lines       every LED and e-paper line the board file names exists on that chip
        spi panel        the e-paper SPI node (e.g. /dev/spidev0.0) exists and opens
        mqtt broker      with --config: its [mqtt] broker accepts the login

      Exit status: 0 when everything passes, 69 when something fails.

      Without --board, the board is the one --config names, else it is detected from \
      /proc/device-tree/model on a Raspberry Pi.

      Examples:
        stressmon doctor --board rpi4
        stressmon doctor --board sim --json
        stressmon doctor --board ./my-board.toml
        stressmon doctor --config /etc/stressmon/stressmon.toml
      """
  )

  @Option(name: .long, help: ArgumentHelp("Board name (rpi3, rpi4, rpi5, rpizero2w, sim) or a board file path.", valueName: "name|file"))
  var board: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The daemon's configuration (TOML): its board, and its [mqtt] broker is checked too.", valueName: "file"))
  var config: String?

  @Flag(name: .long, help: "Print one JSON object on stdout instead of the list.")
  var json = false

  /// How long the sample rate is measured, in seconds of the sensor's clock.
  static let rateMeasurement: Int64 = 2_000_000_000

  func run() async throws {
    var configuration: MonitorConfiguration?
    if let config {
      do {
        configuration = try MonitorConfigurationLoader.load(path: config)
      } catch {
        throw CLIFailure(code: error.sysexitCode, message: error.description)
      }
    }
    let loaded = try Self.loadBoard(board ?? configuration?.device.board)
    var checks = try await sensorChecks(loaded)
    checks += gpioChecks(loaded)
    checks += panelChecks(loaded)
    if let configuration { checks.append(await configuration.mqttBrokerCheck()) }
    let failed = checks.filter { $0.status == .fail }
    if json {
      try CLIOutput.json(DoctorOutput(board: loaded.name, path: loaded.path, ok: failed.isEmpty, checks: checks))
    } else {
      CLIOutput.line("Board \(loaded.name): \(loaded.description) (\(loaded.path))")
      for check in checks {
        let label = check.status.rawValue.uppercased().padding(4)
        CLIOutput.line("\(label)  \(check.name.padding(16)) \(check.detail)")
        if let fix = check.fix, check.status == .fail { CLIOutput.line("      \("".padding(16)) fix: \(fix)") }
      }
      CLIOutput.line(failed.isEmpty
        ? (checks.count == 1 ? "The check passed." : "All \(checks.count) checks passed.")
        : "\(failed.count) of \(counted(checks.count, "check")) failed.")
    }
    if let first = failed.first {
      throw CLIFailure.unavailable(
        "doctor: \(counted(failed.count, "check")) failed on board \(loaded.name); first: \(first.name): \(first.detail)")
    }
  }

  // MARK: - Board

  static func loadBoard(_ name: String?) throws -> Board {
    guard let name = name ?? BoardCatalog.detectedBoardName() else {
      throw CLIFailure.usage("this is not a Raspberry Pi this tool knows (no /proc/device-tree/model); pass --board")
    }
    do {
      return try BoardCatalog.standard().load(name)
    } catch {
      throw CLIFailure(code: error.sysexitCode, message: error.description)
    }
  }

  // MARK: - Sensor

  private func sensorChecks(_ board: Board) async throws -> [DiagnosticCheck] {
    let sensor = board.sensor
    if sensor.part == .emulated {
      var checks = [DiagnosticCheck(
        name: "i2c bus", status: .pass,
        detail: "emulated bus with a \((sensor.emulates ?? .max30102).rawValue) at \(I2CDevice.hex(sensor.address)) "
          + "replaying \(sensor.recording ?? "?")")]
      do {
        let configuration = try MAX30102Configuration(board: sensor)
        let clock = VirtualClock()
        let (bus, _) = try PulseSourceFactory.emulatedBus(for: board, clock: clock)
        checks += await HardwareDiagnostics.max3010x(
          bus: bus, configuration: configuration, clock: clock, measureFor: Self.rateMeasurement)
      } catch {
        checks.append(DiagnosticCheck(name: "sensor identity", status: .fail, detail: error.description,
                                      fix: "fix the board file's [sensor] section"))
      }
      return checks
    }
    guard let i2c = board.i2c else { return [] }
    let node = HardwareDiagnostics.deviceNode(i2c.device, kind: .i2c, name: "i2c bus")
    var checks = [node, HardwareDiagnostics.groupMembership(DeviceKind.i2c.group)]
    let driver = HardwareDiagnostics.kernelDriver(bus: i2c.bus, address: sensor.address)
    checks.append(driver)
    guard node.status == .pass, driver.status == .pass else {
      let reason = node.status != .pass ? "needs the I2C bus" : "the kernel driver holds the sensor"
      checks.append(DiagnosticCheck(name: "sensor identity", status: .skip, detail: reason))
      if sensor.part.isMAX3010x { checks.append(DiagnosticCheck(name: "sample rate", status: .skip, detail: reason)) }
      return checks
    }
    do {
      let bus = try LinuxI2CBus(path: i2c.device)
      if sensor.part.isMAX3010x {
        let configuration = try MAX30102Configuration(board: sensor)
        checks += await HardwareDiagnostics.max3010x(
          bus: bus, configuration: configuration, clock: SystemClock(), measureFor: Self.rateMeasurement)
      } else {
        checks += HardwareDiagnostics.ads1x15(bus: bus, configuration: try ADS1x15Configuration(board: sensor))
      }
    } catch let error as DeviceError {
      checks.append(DiagnosticCheck(name: "sensor identity", status: .fail, detail: error.description, fix: error.hint))
    } catch {
      checks.append(DiagnosticCheck(name: "sensor identity", status: .fail, detail: "\(error)",
                                    fix: "fix the board file's [sensor] section"))
    }
    return checks
  }

  // MARK: - GPIO (the chip by label, the lines by name, through LinuxIO)

  private func gpioChecks(_ board: Board) -> [DiagnosticCheck] {
    var lines: [(String, GPIOLineID)] = board.leds.lines.enumerated().map { ("LED \($0.offset + 1)", $0.element) }
    if board.epaper.panel != .none {
      for (role, line) in [("e-paper DC", board.epaper.dc), ("e-paper RST", board.epaper.rst),
                           ("e-paper BUSY", board.epaper.busy), ("e-paper PWR", board.epaper.pwr)] {
        if let line { lines.append((role, line)) }
      }
    }
    if board.simulated {
      return [DiagnosticCheck(name: "gpio", status: .pass, detail: "simulated board: LEDs are rendered, no GPIO chip")]
    }
    guard let label = board.gpio.chipLabel else {
      return [DiagnosticCheck(name: "gpio chip", status: .skip, detail: "the board has no LEDs or panel")]
    }
    let chip: GPIODChip
    do {
      chip = try GPIODChip(label: label)
    } catch {
      let detail = "no GPIO chip labelled '\(label)' (\((error as? DeviceError)?.systemMessage ?? "\(error)"))"
      return [
        DiagnosticCheck(name: "gpio chip", status: .fail, detail: detail, fix: DeviceKind.gpio.enableHint),
        DiagnosticCheck(name: "gpio lines", status: .skip, detail: "needs the GPIO chip"),
      ]
    }
    defer { chip.close() }
    let (chipName, lineCount) = chip.chipInfo() ?? (label, 0)
    var checks = [DiagnosticCheck(
      name: "gpio chip", status: .pass,
      detail: "'\(label)' is \(chip.devicePath) (\(chipName)) with \(counted(lineCount, "line")), "
        + "libgpiod \(GPIODChip.backend.version)")]
    for (role, reference) in lines {
      guard let info = chip.inspect(reference) else {
        checks.append(DiagnosticCheck(
          name: "gpio line", status: .fail, detail: "\(role): no line \(reference) on '\(label)'",
          fix: "check the board file's line names against 'gpioinfo \(chipName)'"))
        continue
      }
      let found = Self.describe(reference, info)
      if info.inUse {
        let consumer = info.consumer ?? "another program"
        checks.append(DiagnosticCheck(
          name: "gpio line", status: .fail, detail: "\(role): \(found) is in use by \(consumer)",
          fix: "stop \(consumer) or pick a free line ('gpioinfo \(chipName)')"))
      } else {
        checks.append(DiagnosticCheck(name: "gpio line", status: .pass, detail: "\(role): \(found) is free"))
      }
    }
    return checks
  }

  /// How a board file's line was found: by name, by offset, or (Pi 5 on a 6.1 kernel, whose RP1 lines are named
  /// after header pins) `GPIOn` as offset n, with the kernel's own name for it.
  static func describe(_ reference: GPIOLineID, _ info: GPIOLineInfo) -> String {
    switch info.resolution {
    case .bcmFallback(let name, let offset):
      let kernelName = info.kernelName.isEmpty ? "no name" : "'\(info.kernelName)'"
      return "'\(name)' is not a line name on this kernel; using offset \(offset) (BCM GPIO\(offset), named "
        + "\(kernelName) here)"
    default:
      return "\(reference)"
    }
  }

  // MARK: - Panel

  private func panelChecks(_ board: Board) -> [DiagnosticCheck] {
    let epaper = board.epaper
    guard epaper.panel != .none else {
      return [DiagnosticCheck(name: "spi panel", status: .skip, detail: "the board has no e-paper panel")]
    }
    if board.simulated {
      let output = epaper.output ?? "stressmon-panel.png"
      let directory = output.contains("/") ? String(output[..<output.lastIndex(of: "/")!]) : "."
      let writable = access(directory.isEmpty ? "/" : directory, W_OK) == 0
      return [DiagnosticCheck(
        name: "spi panel", status: writable ? .pass : .fail,
        detail: "simulated \(epaper.panel.rawValue) panel rendered to \(output)",
        fix: writable ? nil : "make \(directory) writable or set [epaper] output in the board file")]
    }
    guard let spi = epaper.spi else { return [] }
    return [HardwareDiagnostics.deviceNode(spi, kind: .spi, name: "spi panel"),
            HardwareDiagnostics.groupMembership(DeviceKind.spi.group)]
  }
}

/// The JSON shape of `stressmon doctor --json`.
struct DoctorOutput: Encodable {
  var board: String
  var path: String
  var ok: Bool
  var checks: [DiagnosticCheck]
}

extension String {
  /// Left-aligned in `width` columns.
  func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
