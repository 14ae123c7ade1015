import BoardParts

/// One board: where the sensor, the LEDs and the e-paper panel are wired. Loaded from `boards/<name>.toml`
/// (schema and examples: docs/boards.md). The single source of truth for the pin map.
public struct Board: Sendable, Equatable {
  public var name: String
  public var description: String
  /// The file this board was loaded from (absolute when found by name).
  public var path: String
  /// Simulated boards have no GPIO or SPI hardware: LEDs and panel are rendered, the sensor is emulated.
  public var simulated: Bool
  /// nil when the sensor needs no I2C bus (an emulated sensor).
  public var i2c: I2CSettings?
  public var sensor: SensorSettings
  public var gpio: GPIOSettings
  public var leds: LEDSettings
  public var epaper: EPaperSettings

  public init(
    name: String, description: String, path: String, simulated: Bool, i2c: I2CSettings?, sensor: SensorSettings,
    gpio: GPIOSettings, leds: LEDSettings, epaper: EPaperSettings
  ) {
    self.name = name
    self.description = description
    self.path = path
    self.simulated = simulated
    self.i2c = i2c
    self.sensor = sensor
    self.gpio = gpio
    self.leds = leds
    self.epaper = epaper
  }
}

/// `[i2c]`: the bus the sensor is on.
public struct I2CSettings: Sendable, Equatable {
  public var bus: Int
  /// The i2c-dev node, `/dev/i2c-<bus>` unless the board file names another.
  public var device: String

  public init(bus: Int, device: String? = nil) {
    self.bus = bus
    self.device = device ?? "/dev/i2c-\(bus)"
  }
}

/// `[sensor]`: the part, its address and its settings. Settings not given are left to the driver's defaults;
/// their allowed values and combinations are checked by the driver (Sensors), which names the line from `lines`.
public struct SensorSettings: Sendable, Equatable {
  public var part: SensorPart
  public var address: UInt8
  /// Clone MAX30102 boards often swap the red and IR LEDs: FIFO slot 1 then carries IR.
  public var swapRedIR: Bool
  /// For `emulated`: which part the emulator presents (max30102, max30101 or max30105).
  public var emulates: SensorPart?
  /// For `emulated`: the recording that feeds it (resolved against the board file's directory).
  public var recording: String?
  /// For `emulated`: after this many seconds the emulated sensor stops answering (its transfers hang, as on a wedged
  /// I2C bus), to test the systemd watchdog. nil: it never does.
  public var stallAfterSeconds: Double?

  // MAX3010x
  /// 2: red + IR (SpO2 mode); 3: red + IR + green (multi-LED mode, MAX30101/MAX30105).
  public var leds: Int?
  public var sampleRateHz: Int?
  public var averaging: Int?
  public var pulseWidthMicroseconds: Int?
  public var adcRangeNanoamps: Int?
  public var ledCurrentMilliamps: Double?
  public var redCurrentMilliamps: Double?
  public var irCurrentMilliamps: Double?
  public var greenCurrentMilliamps: Double?
  public var automaticLEDCurrent: Bool?

  // ADS1x15
  public var channel: Int?
  public var fullScaleVolts: Double?
  public var dataRateSPS: Int?
  public var outputRateHz: Double?

  /// Board-file path, for messages.
  public var path: String
  /// The line each key was written on, by its key name in the file.
  public var lines: [String: Int]

  public init(part: SensorPart, address: UInt8? = nil, swapRedIR: Bool = false, path: String = "<defaults>") {
    self.part = part
    self.address = address ?? part.defaultAddress
    self.swapRedIR = swapRedIR
    self.path = path
    lines = [:]
  }

  /// "file:line" of a key, or the file alone when the key was not written (a default).
  public func location(of key: String) -> String {
    if let line = lines[key] { return "\(path):\(line)" }
    return path
  }
}

/// `[gpio]`: the GPIO chip, found by its label (chip numbers change between kernels; the Pi 5 renumbered).
public struct GPIOSettings: Sendable, Equatable {
  public var chipLabel: String?

  public init(chipLabel: String?) { self.chipLabel = chipLabel }
}

/// `[leds]`.
public struct LEDSettings: Sendable, Equatable {
  /// How the category LEDs are wired.
  public enum Wiring: String, Sendable, CaseIterable {
    /// One RGB LED: lines are red, green, blue.
    case rgb
    /// Four LEDs, one per category: lines are relaxed, mild, moderate, high.
    case bar
    /// One LED: the blink pattern alone carries the category.
    case single
    case none

    /// How many lines the wiring needs.
    public var lineCount: Int {
      switch self {
      case .rgb: 3
      case .bar: 4
      case .single: 1
      case .none: 0
      }
    }
  }

  public var wiring: Wiring
  public var lines: [GPIOLineID]
  /// true when the LED lights with the line low (LED to 3.3 V through the resistor).
  public var activeLow: Bool

  public init(wiring: Wiring, lines: [GPIOLineID], activeLow: Bool) {
    self.wiring = wiring
    self.lines = lines
    self.activeLow = activeLow
  }
}

/// The e-paper panels stressmon has drivers for.
public enum PanelModel: String, Sendable, CaseIterable {
  case waveshare2in13V4 = "waveshare-2in13-v4"
  case waveshare2in9V2 = "waveshare-2in9-v2"
  case waveshare1in54V2 = "waveshare-1in54-v2"
  case none
}

/// `[epaper]`: the panel, its SPI node and control lines; or, on a simulated board, the image it renders to.
public struct EPaperSettings: Sendable, Equatable {
  public var panel: PanelModel
  public var spi: String?
  public var dc: GPIOLineID?
  public var rst: GPIOLineID?
  public var busy: GPIOLineID?
  /// The panel's power switch (Waveshare e-Paper HAT rev 2.x: GPIO18): high before each refresh, low after deep
  /// sleep. nil: the panel is powered directly (older HATs, bare panels).
  public var pwr: GPIOLineID?
  /// Simulated panel: the PNG/PBM file each refresh is written to (relative paths: the working directory).
  public var output: String?

  public init(
    panel: PanelModel, spi: String? = nil, dc: GPIOLineID? = nil, rst: GPIOLineID? = nil,
    busy: GPIOLineID? = nil, pwr: GPIOLineID? = nil, output: String? = nil
  ) {
    self.panel = panel
    self.spi = spi
    self.dc = dc
    self.rst = rst
    self.busy = busy
    self.pwr = pwr
    self.output = output
  }
}
