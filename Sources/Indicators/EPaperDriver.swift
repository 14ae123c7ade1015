import BoardParts
import LinuxIO
import Logging
import Raster

/// Drives an SSD1680/SSD1681 e-paper panel over SPI plus three GPIO lines (DC, RST, BUSY) and, on HAT rev 2.x, the
/// PWR switch, with the init sequence the panel's maker uses (see `EPaperModel`). Every refresh switches the panel
/// on (PWR high), wakes it with a hardware reset, initialises it, writes both RAMs, runs the update, puts the panel
/// into deep sleep and, 2 s later, switches it off (PWR low; Waveshare's `module_exit`): the panel draws no
/// current between refreshes and cannot be left half-configured. Both RAMs are written every time, so nothing
/// depends on RAM kept across the power cut.
///
/// Full refresh: the new frame into both RAMs, update 0xF7 (OTP mode-1 waveform). Partial refresh: the previous
/// frame into the RED RAM and the new one into the BW RAM, then the mode-2 waveform (0xFF from OTP, or the
/// waveform written to the LUT register and 0xCF). Waiting on BUSY polls every 10 ms on the injected clock and
/// gives up after `busyTimeoutMilliseconds` with an error naming the panel and the step. BUSY is requested with a
/// pull-down: an open BUSY wire (or an unpowered panel) reads low, and an update whose BUSY never rises is an
/// error (`busyNeverRose`), not a blank panel that reports success.
public actor EPaperDriver {
  // MARK: - Properties

  public let model: EPaperModel
  private let spi: any SPITransport
  private let dataCommand: any GPIOLine
  private let reset: any GPIOLine
  private let busy: any GPIOLine
  /// The HAT's panel power switch, when wired: high from the start of a refresh until 2 s after its deep sleep.
  private let power: (any GPIOLine)?
  private let chip: (any GPIOChip)?
  private let clock: any IndicatorClock
  public let busyTimeoutMilliseconds: Int64
  private var isClosed = false
  private let logger = Logger(label: "stressmon.indicators.epaper")

  /// BUSY poll interval (Waveshare's drivers poll every 10 ms).
  public static let busyPollMilliseconds: Int64 = 10
  /// How long after the update command BUSY must have risen (the controller raises it at once; 5 polls).
  public static let busyRiseMilliseconds: Int64 = 50
  /// Deep sleep to PWR low: Waveshare's examples wait "at least 2s" before `module_exit` switches the 5 V off.
  public static let powerOffDelayMilliseconds: Int64 = 2_000
  /// Longest wait for BUSY: a full refresh takes 2-4 s at room temperature and longer in the cold.
  public static let defaultBusyTimeoutMilliseconds: Int64 = 10_000
  /// Hardware reset pulse: high 20 ms, low 2 ms, high 20 ms (Waveshare `reset()`; the datasheet asks ≥ 10 µs low).
  static let resetSettleMilliseconds: Int64 = 20
  static let resetLowMilliseconds: Int64 = 2
  /// Temperature Sensor Control (0x18) value for the internal sensor.
  static let internalTemperatureSensor: UInt8 = 0x80
  /// Deep Sleep Mode (0x10) value for mode 1: RAM retained, woken by a hardware reset.
  static let deepSleepMode1: UInt8 = 0x01

  public enum RefreshMode: String, Sendable, Hashable {
    case full, partial
  }

  // MARK: - Initialization

  /// A driver on given lines: libgpiod lines and `SPIDevice` on a board, `EPaperEmulator`'s views in tests.
  /// `power`: the PWR switch, nil for a panel powered directly.
  public init(
    model: EPaperModel, spi: any SPITransport, dataCommand: any GPIOLine, reset: any GPIOLine, busy: any GPIOLine,
    power: (any GPIOLine)? = nil, clock: any IndicatorClock,
    busyTimeoutMilliseconds: Int64 = EPaperDriver.defaultBusyTimeoutMilliseconds
  ) {
    self.init(model: model, spi: spi, dataCommand: dataCommand, reset: reset, busy: busy, power: power, chip: nil,
              clock: clock, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
  }

  private init(
    model: EPaperModel, spi: any SPITransport, dataCommand: any GPIOLine, reset: any GPIOLine, busy: any GPIOLine,
    power: (any GPIOLine)?, chip: (any GPIOChip)?, clock: any IndicatorClock, busyTimeoutMilliseconds: Int64
  ) {
    self.model = model
    self.spi = spi
    self.dataCommand = dataCommand
    self.reset = reset
    self.busy = busy
    self.power = power
    self.chip = chip
    self.clock = clock
    self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
  }

  /// Opens the real panel: the spidev node, then the GPIO chip and its DC (output), RST (output, high = run),
  /// BUSY (input, pull-down) and, if wired, PWR (output, low until the first refresh) lines under the consumer
  /// `stressmon`.
  /// Throws `DeviceError` naming `/dev/spidevB.C` or the chip.
  public static func open(
    model: EPaperModel, pins: EPaperPins, clock: any IndicatorClock = SystemIndicatorClock(),
    busyTimeoutMilliseconds: Int64 = defaultBusyTimeoutMilliseconds
  ) throws -> EPaperDriver {
    let spi = try SPIDevice(path: pins.spiPath, configuration: .ePaper)
    let chip: GPIODChip
    do {
      chip = try GPIODChip(label: pins.chipLabel)
    } catch {
      spi.close()
      throw error
    }
    var lines: [any GPIOLine] = []
    do {
      lines.append(try chip.requestOutput(pins.dataCommand, initial: false))
      lines.append(try chip.requestOutput(pins.reset, initial: true))
      lines.append(try chip.requestInput(pins.busy, bias: .pullDown))
      if let power = pins.power { lines.append(try chip.requestOutput(power, initial: false)) }
    } catch {
      for line in lines { line.release() }
      chip.close()
      spi.close()
      throw error
    }
    return EPaperDriver(model: model, spi: spi, dataCommand: lines[0], reset: lines[1], busy: lines[2],
                        power: lines.count > 3 ? lines[3] : nil, chip: chip, clock: clock,
                        busyTimeoutMilliseconds: busyTimeoutMilliseconds)
  }

  // MARK: - Public

  /// Shows `frame` (in reading orientation, `model.layoutWidth`×`layoutHeight`) and puts the panel to sleep.
  /// A partial refresh needs the frame the panel shows now as `previous`; without it, it runs as a full refresh.
  public func refresh(_ frame: Bitmap, mode: RefreshMode, previous: Bitmap?) async throws {
    guard !isClosed else { throw EPaperError.closed(panel: model.name) }
    try checkSize(frame)
    if let previous { try checkSize(previous) }
    let effective: RefreshMode = previous == nil ? .full : mode
    logger.debug("refresh", metadata: ["panel": "\(model.name)", "mode": "\(effective.rawValue)"])
    try power?.set(true)
    do {
      try await run(effective, frame: frame, previous: previous)
    } catch {
      // Half-way: switch the panel off rather than leave it powered and awake until the next refresh.
      try? power?.set(false)
      throw error
    }
    if let power {
      try await clock.sleep(milliseconds: Self.powerOffDelayMilliseconds)
      try power.set(false)
    }
  }

  private func run(_ effective: RefreshMode, frame: Bitmap, previous: Bitmap?) async throws {
    try await wake()
    try await configure(border: effective == .full ? model.borderFull : model.borderPartial)
    let newRAM = ramBytes(frame)
    switch effective {
    case .full:
      try writeRAM(.writeRedRAM, newRAM)
      try writeRAM(.writeBlackWhiteRAM, newRAM)
      try await update(SSD168xUpdateSequence.full, step: "full refresh")
    case .partial:
      try writeRAM(.writeRedRAM, ramBytes(previous!))
      try writeRAM(.writeBlackWhiteRAM, newRAM)
      switch model.partialWaveform {
      case .otp:
        try await update(SSD168xUpdateSequence.partialFromOTP, step: "partial refresh")
      case .register(let waveform):
        try send(.writeLUT, waveform.bytes)
        try send(.endOption, [waveform.endOption])
        try send(.gateVoltage, [waveform.gateVoltage])
        try send(.sourceVoltage, waveform.sourceVoltages)
        try send(.writeVCOM, [waveform.vcom])
        try await update(SSD168xUpdateSequence.partialFromRegister, step: "partial refresh")
      }
    }
    try sleep()
  }

  /// Puts the panel into deep sleep (mode 1: RAM kept; only a hardware reset wakes it). `refresh` ends with it.
  public func sleep() throws {
    try send(.deepSleep, [Self.deepSleepMode1])
  }

  /// Switches the panel's power off (if wired), releases DC, RST, BUSY and PWR and closes SPI (and the GPIO chip
  /// if `open` opened it). Idempotent. The panel keeps its picture without power.
  public func close() {
    guard !isClosed else { return }
    isClosed = true
    if let power {
      do {
        try power.set(false)
      } catch {
        logger.warning("could not switch the panel power off", metadata: ["error": "\(error)"])
      }
    }
    for line in [dataCommand, reset, busy] + (power.map { [$0] } ?? []) { line.release() }
    chip?.close()
    spi.close()
  }

  // MARK: - Sequence

  private func wake() async throws {
    try reset.set(true)
    try await clock.sleep(milliseconds: Self.resetSettleMilliseconds)
    try reset.set(false)
    try await clock.sleep(milliseconds: Self.resetLowMilliseconds)
    try reset.set(true)
    try await clock.sleep(milliseconds: Self.resetSettleMilliseconds)
    try await waitWhileBusy(step: "hardware reset")
    try send(.softwareReset)
    try await waitWhileBusy(step: "software reset")
  }

  private func configure(border: UInt8) async throws {
    let lastGate = model.nativeHeight - 1
    try send(.driverOutputControl, [UInt8(lastGate & 0xFF), UInt8(lastGate >> 8), model.gateScan])
    try send(.dataEntryMode, [model.dataEntryMode])
    let (xFirst, xLast) = model.dataEntryMode & 0x01 != 0 ? (0, model.rowBytes - 1) : (model.rowBytes - 1, 0)
    let (yFirst, yLast) = model.dataEntryMode & 0x02 != 0 ? (0, lastGate) : (lastGate, 0)
    try send(.ramXRange, [UInt8(xFirst), UInt8(xLast)])
    try send(.ramYRange, [UInt8(yFirst & 0xFF), UInt8(yFirst >> 8), UInt8(yLast & 0xFF), UInt8(yLast >> 8)])
    try send(.borderWaveform, [border])
    if let control = model.updateControl1 { try send(.displayUpdateControl1, control) }
    try send(.temperatureSensor, [Self.internalTemperatureSensor])
  }

  /// Writes a whole RAM from the window's first address (the address counter is set before each RAM).
  private func writeRAM(_ command: SSD168xCommand, _ bytes: [UInt8]) throws {
    let lastGate = model.nativeHeight - 1
    let xFirst = model.dataEntryMode & 0x01 != 0 ? 0 : model.rowBytes - 1
    let yFirst = model.dataEntryMode & 0x02 != 0 ? 0 : lastGate
    try send(.ramXCounter, [UInt8(xFirst)])
    try send(.ramYCounter, [UInt8(yFirst & 0xFF), UInt8(yFirst >> 8)])
    try send(command, bytes)
  }

  private func update(_ sequence: UInt8, step: String) async throws {
    try send(.displayUpdateControl2, [sequence])
    let activated = clock.nowMilliseconds()
    try send(.masterActivation)
    try await waitForBusyToRise(since: activated, step: step)
    try await waitWhileBusy(step: step)
  }

  // MARK: - Bus

  private func send(_ command: SSD168xCommand, _ parameters: [UInt8] = []) throws {
    try dataCommand.set(false)
    try spi.write([command.rawValue])
    guard !parameters.isEmpty else { return }
    try dataCommand.set(true)
    try spi.write(parameters)
  }

  /// An update keeps BUSY high for hundreds of milliseconds: one that never rises means BUSY is not connected (it
  /// reads low through the pull-down) or the controller has no power. A first look later than the rise window
  /// (this process was not scheduled) proves nothing either way: the update may be over already.
  private func waitForBusyToRise(since activated: Int64, step: String) async throws {
    guard clock.nowMilliseconds() - activated < Self.busyRiseMilliseconds else { return }
    while try !busy.get() {
      if clock.nowMilliseconds() - activated >= Self.busyRiseMilliseconds {
        throw EPaperError.busyNeverRose(panel: model.name, step: step, powerSwitched: power != nil)
      }
      try await clock.sleep(milliseconds: Self.busyPollMilliseconds)
    }
  }

  private func waitWhileBusy(step: String) async throws {
    let start = clock.nowMilliseconds()
    while try busy.get() {
      let waited = clock.nowMilliseconds() - start
      if waited >= busyTimeoutMilliseconds {
        throw EPaperError.busyTimeout(panel: model.name, step: step, milliseconds: waited)
      }
      try await clock.sleep(milliseconds: Self.busyPollMilliseconds)
    }
  }

  // MARK: - Frames

  /// RAM bytes of a frame: turned to the native orientation, rows top to bottom, 1 = white.
  private func ramBytes(_ frame: Bitmap) -> [UInt8] {
    frame.rotated(clockwiseQuarterTurns: model.quarterTurnsToNative).inverted().bytes
  }

  private func checkSize(_ frame: Bitmap) throws {
    guard frame.width == model.layoutWidth && frame.height == model.layoutHeight else {
      throw EPaperError.frameSize(panel: model.name, expected: (model.layoutWidth, model.layoutHeight),
                                  got: (frame.width, frame.height))
    }
  }
}

/// Where a panel is wired: the spidev node and the GPIO chip and lines for DC, RST and BUSY.
public struct EPaperPins: Sendable, Hashable {
  public var spiPath: String
  public var chipLabel: String
  public var dataCommand: GPIOLineID
  public var reset: GPIOLineID
  public var busy: GPIOLineID
  /// The HAT's panel power switch (Waveshare HAT rev 2.x: GPIO18), nil when the panel is powered directly.
  public var power: GPIOLineID?

  /// Waveshare's e-Paper HAT on a Raspberry Pi (`epdconfig.py`): SPI0 CE0, DC = GPIO25, RST = GPIO17,
  /// BUSY = GPIO24, PWR = GPIO18.
  public static func waveshareHAT(chipLabel: String = "pinctrl-bcm2711") -> EPaperPins {
    EPaperPins(spiPath: "/dev/spidev0.0", chipLabel: chipLabel, dataCommand: .offset(25), reset: .offset(17),
               busy: .offset(24), power: .offset(18))
  }

  public init(
    spiPath: String, chipLabel: String, dataCommand: GPIOLineID, reset: GPIOLineID, busy: GPIOLineID,
    power: GPIOLineID? = nil
  ) {
    self.spiPath = spiPath
    self.chipLabel = chipLabel
    self.dataCommand = dataCommand
    self.reset = reset
    self.busy = busy
    self.power = power
  }
}

/// A panel that did not do what it was told.
public enum EPaperError: Error, Equatable, CustomStringConvertible {
  case busyTimeout(panel: String, step: String, milliseconds: Int64)
  case busyNeverRose(panel: String, step: String, powerSwitched: Bool)
  case frameSize(panel: String, expected: (Int, Int), got: (Int, Int))
  case closed(panel: String)

  public static func == (lhs: EPaperError, rhs: EPaperError) -> Bool { lhs.description == rhs.description }

  public var description: String {
    switch self {
    case .busyTimeout(let panel, let step, let milliseconds):
      "\(panel): BUSY stayed high for \(milliseconds) ms after the \(step): check the BUSY wire and the panel's "
        + "3.3 V supply, and that the board file names the right panel model"
    case .busyNeverRose(let panel, let step, let powerSwitched):
      "\(panel): BUSY never went high after the \(step) command (the controller raises it while it updates): "
        + "check the BUSY wire (HAT: GPIO24)"
        + (powerSwitched ? " and the PWR wire (HAT rev 2.x: GPIO18)"
          : "; a HAT rev 2.x also needs its PWR line: add pwr = \"GPIO18\" to [epaper] in the board file")
    case .frameSize(let panel, let expected, let got):
      "\(panel): frame is \(got.0)×\(got.1) pixels, the panel needs \(expected.0)×\(expected.1): render with this "
        + "panel's layout"
    case .closed(let panel):
      "\(panel): the driver was closed; open the panel again"
    }
  }
}
