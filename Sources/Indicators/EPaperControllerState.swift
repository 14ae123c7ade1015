import Platform
import Raster
import StressModel

/// The register, RAM and glass state of an emulated SSD1680/SSD1681, and how each command changes it. Owned by
/// `EPaperEmulator` under its lock.
struct EPaperControllerState {
  // MARK: - Fixed by the model

  let model: EPaperModel
  /// RAM size: SSD1680 176 sources × 296 gates, SSD1681 200 × 200 (datasheets §6 "RAM").
  let ramRowBytes: Int
  let ramRows: Int

  // MARK: - Pins and power

  var dataCommandHigh = false
  var resetHigh = true
  var asleep = false
  var busyUntil: Int64 = 0
  /// How long the last update keeps BUSY high, for the emulator to count from the end of its own work.
  var lastUpdateBusy: Int64?
  var busyHeld = false
  var releasedPins: Set<String> = []
  var spiClosed = false
  /// The supply, switched by the HAT's PWR line (`EPaperControllerState+Power`); always on without the switch.
  var powered = true
  /// When the last deep sleep command arrived (Waveshare waits 2 s after it before switching the supply off).
  var sleptAt: Int64?
  /// Power-up noise in RAM and on the glass.
  var noise: SplitMix64

  // MARK: - Registers (power-on values from the datasheet)

  var mux: Int
  var gateScan: UInt8 = 0
  var dataEntryMode: UInt8 = 0x03
  var xStart = 0
  var xEnd: Int
  var yStart = 0
  var yEnd: Int
  var xCounter = 0
  var yCounter = 0
  var ramOptions: UInt8 = 0x00
  var updateSequence: UInt8 = 0xFF
  var clockOn = false
  var analogOn = false
  var lut: LUT = .none

  enum LUT: Equatable {
    case none
    case otp(mode: Int)
    case register([UInt8])
  }

  // MARK: - Memory and glass

  var bwRAM: [UInt8]
  var redRAM: [UInt8]
  var glass: Bitmap

  // MARK: - Command parsing

  var command: SSD168xCommand?
  var parameters: [UInt8] = []

  /// Frames of one-way drive that move a pixel all the way to the other colour. Fewer (a one-frame touch-up)
  /// leave it as it was. Vendor waveforms flip pixels with 10-20 frames and touch up with 1-2; 8 sits between.
  static let framesToFlip = 8

  // MARK: - Record

  var faults: [String] = []
  var fullRefreshes = 0
  var partialRefreshes = 0

  // MARK: - Initialization

  init(model: EPaperModel, seed: UInt64) {
    self.model = model
    switch model.controller {
    case .ssd1680: (ramRowBytes, ramRows) = (22, 296)
    case .ssd1681: (ramRowBytes, ramRows) = (25, 200)
    }
    mux = ramRows - 1
    xEnd = ramRowBytes - 1
    yEnd = ramRows - 1
    var generator = SplitMix64(seed: seed)
    bwRAM = (0..<(ramRowBytes * ramRows)).map { _ in generator.nextByte() }
    redRAM = (0..<(ramRowBytes * ramRows)).map { _ in generator.nextByte() }
    let pixels = (0..<(model.rowBytes * model.nativeHeight)).map { _ in generator.nextByte() }
    glass = Bitmap(width: model.nativeWidth, height: model.nativeHeight, packedRows: pixels)!
    noise = generator
  }

  // MARK: - Pins

  mutating func setReset(high: Bool, now: Int64) {
    defer { resetHigh = high }
    // The controller resets on the rising edge that ends a low pulse: registers to power-on values, out of
    // deep sleep, RAM kept (deep sleep mode 1), BUSY briefly high. Without power nothing happens.
    guard high && !resetHigh && powered else { return }
    resetRegisters()
    asleep = false
    busyUntil = now + EPaperEmulator.hardwareResetBusyMilliseconds
  }

  // MARK: - SPI

  mutating func receive(_ bytes: [UInt8], now: Int64) {
    guard powered else {
      faults.append("SPI bytes while the panel has no power (PWR low): the controller is off")
      return
    }
    guard resetHigh else {
      faults.append("SPI bytes while RST is held low")
      return
    }
    if asleep {
      faults.append("SPI bytes during deep sleep (only a hardware reset wakes the controller)")
      return
    }
    if busyHeld || now < busyUntil {
      faults.append("SPI bytes while BUSY is high (\(dataCommandHigh ? "data" : "command 0x" + hex(bytes.first ?? 0)))")
    }
    for byte in bytes {
      if dataCommandHigh { data(byte, now: now) } else { begin(byte, now: now) }
    }
  }

  private mutating func begin(_ byte: UInt8, now: Int64) {
    parameters.removeAll(keepingCapacity: true)
    guard let command = SSD168xCommand(rawValue: byte) else {
      faults.append("unknown command 0x\(hex(byte))")
      self.command = nil
      return
    }
    self.command = command
    switch command {
    case .softwareReset:
      resetRegisters()
      busyUntil = now + EPaperEmulator.softwareResetBusyMilliseconds
    case .masterActivation:
      activate(now: now)
    default:
      break
    }
  }

  private mutating func data(_ byte: UInt8, now: Int64) {
    guard let command else {
      faults.append("data byte 0x\(hex(byte)) without a command")
      return
    }
    switch command {
    case .writeBlackWhiteRAM, .writeRedRAM:
      writeRAM(byte, red: command == .writeRedRAM)
      return
    default:
      break
    }
    guard let count = command.parameterCount, parameters.count < count else {
      faults.append("extra data byte 0x\(hex(byte)) for command 0x\(hex(command.rawValue))")
      return
    }
    parameters.append(byte)
    if parameters.count == count { apply(command, parameters, now: now) }
  }

  private mutating func apply(_ command: SSD168xCommand, _ p: [UInt8], now: Int64) {
    switch command {
    case .driverOutputControl:
      mux = Int(p[0]) | Int(p[1] & 0x01) << 8
      gateScan = p[2]
      if mux + 1 != model.nativeHeight {
        faults.append("MUX set to \(mux + 1) gate lines, the panel has \(model.nativeHeight)")
      }
    case .dataEntryMode: dataEntryMode = p[0] & 0x07
    case .ramXRange:
      xStart = Int(p[0] & 0x3F)
      xEnd = Int(p[1] & 0x3F)
    case .ramYRange:
      yStart = Int(p[0]) | Int(p[1] & 0x01) << 8
      yEnd = Int(p[2]) | Int(p[3] & 0x01) << 8
    case .ramXCounter: xCounter = Int(p[0] & 0x3F)
    case .ramYCounter: yCounter = Int(p[0]) | Int(p[1] & 0x01) << 8
    case .displayUpdateControl1: ramOptions = p[0]
    case .displayUpdateControl2: updateSequence = p[0]
    case .writeLUT: lut = .register(p)
    case .deepSleep:
      if p[0] & 0x03 != 0 {
        asleep = true
        sleptAt = now
        if p[0] & 0x03 == 0x03 { bwRAM = bwRAM.map { _ in 0 }; redRAM = redRAM.map { _ in 0 } }  // mode 2: RAM lost
      }
    case .gateVoltage, .sourceVoltage, .writeVCOM, .displayOption, .borderWaveform, .endOption,
      .temperatureSensor, .softwareReset, .masterActivation, .writeBlackWhiteRAM, .writeRedRAM:
      break
    }
  }

  // MARK: - RAM

  private mutating func writeRAM(_ byte: UInt8, red: Bool) {
    if xCounter < ramRowBytes && yCounter < ramRows {
      let index = yCounter * ramRowBytes + xCounter
      if red { redRAM[index] = byte } else { bwRAM[index] = byte }
    } else {
      faults.append("RAM write outside the RAM at x \(xCounter), y \(yCounter)")
    }
    advanceCounter()
  }

  /// Moves the address counter per the data entry mode: bit 0 X+, bit 1 Y+, bit 2 Y first. At the end of the
  /// window on the fast axis it returns to the start and steps the slow axis (datasheet, command 0x11).
  private mutating func advanceCounter() {
    let xStep = dataEntryMode & 0x01 != 0 ? 1 : -1
    let yStep = dataEntryMode & 0x02 != 0 ? 1 : -1
    if dataEntryMode & 0x04 == 0 {
      guard xCounter == xEnd else { xCounter += xStep; return }
      xCounter = xStart
      yCounter = yCounter == yEnd ? yStart : yCounter + yStep
    } else {
      guard yCounter == yEnd else { yCounter += yStep; return }
      yCounter = yStart
      xCounter = xCounter == xEnd ? xStart : xCounter + xStep
    }
  }

  private func ramBit(_ ram: [UInt8], x: Int, row: Int) -> Bool {
    ram[row * ramRowBytes + (x >> 3)] & (0x80 >> UInt8(x & 7)) != 0
  }

  /// A RAM bit after the RAM option (0 normal, 4 bypass as 0, 8 inverse).
  private func optioned(_ bit: Bool, option: UInt8) -> Bool {
    switch option {
    case 0x4: false
    case 0x8: !bit
    default: bit
    }
  }

  // MARK: - Update

  private mutating func activate(now: Int64) {
    let sequence = updateSequence
    typealias S = SSD168xUpdateSequence
    if sequence & S.enableClock != 0 { clockOn = true }
    if sequence & S.enableAnalog != 0 {
      if clockOn { analogOn = true } else { faults.append("analog enabled without the clock") }
    }
    if sequence & S.loadLUT != 0 {
      let mode = sequence & S.mode2 != 0 ? 2 : 1
      if mode == 2, model.partialWaveform != .otp {
        lut = .none
        faults.append("mode-2 waveform loaded from OTP, but this panel's OTP has none")
      } else {
        lut = .otp(mode: mode)
      }
    }
    var busy = EPaperEmulator.sequenceBusyMilliseconds
    if sequence & S.display != 0 {
      if clockOn && analogOn {
        busy = drive(partial: sequence & S.mode2 != 0)
      } else {
        faults.append("display step without clock and analog power: the glass does not change")
      }
    }
    if sequence & S.disableAnalog != 0 { analogOn = false }
    if sequence & S.disableClock != 0 { clockOn = false }
    busyUntil = now + busy
    lastUpdateBusy = busy
  }

  /// Drives the glass from RAM with the loaded waveform; returns how long BUSY stays high.
  private mutating func drive(partial: Bool) -> Int64 {
    let bwOption = ramOptions & 0x0F
    let redOption = ramOptions >> 4
    let lutBytes: [UInt8]?
    switch lut {
    case .none:
      faults.append("display step with no waveform loaded: the glass does not change")
      return EPaperEmulator.sequenceBusyMilliseconds
    case .otp: lutBytes = nil
    case .register(let bytes): lutBytes = bytes
    }
    let drives = lutBytes.map { bytes in
      SSD1680Waveform.Transition.allCases.map { SSD1680Waveform.netDrive(of: $0, lut: bytes) }
    }
    for y in 0..<model.nativeHeight {
      // TB = 1 scans the gates from the last: RAM row (MUX − y) lands on glass row y.
      let row = gateScan & 0x01 != 0 ? mux - y : y
      guard row >= 0 && row < ramRows else { continue }
      for x in 0..<model.nativeWidth {
        let white = optioned(ramBit(bwRAM, x: x, row: row), option: bwOption)
        let previousWhite = optioned(ramBit(redRAM, x: x, row: row), option: redOption)
        if let drives {
          let drive = drives[(previousWhite ? 2 : 0) + (white ? 1 : 0)]
          if abs(drive) >= Self.framesToFlip { glass[x, y] = drive > 0 }
        } else if case .otp(let mode) = lut, mode == 2 {
          if white != previousWhite { glass[x, y] = !white }
        } else {
          glass[x, y] = !white
        }
      }
    }
    if partial {
      partialRefreshes += 1
      return Int64(model.partialRefreshMilliseconds)
    }
    fullRefreshes += 1
    return Int64(model.fullRefreshMilliseconds)
  }

  mutating func resetRegisters() {
    mux = ramRows - 1
    gateScan = 0
    dataEntryMode = 0x03
    (xStart, xEnd, yStart, yEnd) = (0, ramRowBytes - 1, 0, ramRows - 1)
    (xCounter, yCounter) = (0, 0)
    ramOptions = 0
    updateSequence = 0xFF
    clockOn = false
    analogOn = false
    lut = .none
    command = nil
    parameters.removeAll()
  }

  private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }
}

