/// SSD1680 / SSD1681 command bytes (datasheets §7 "Command Table"; both controllers share these). Sent with DC
/// low; their parameters follow with DC high.
public enum SSD168xCommand: UInt8, Sendable, CaseIterable {
  /// 3 bytes: MUX (gate lines − 1, low then high byte), gate scan (bit 0 TB, bit 1 SM, bit 2 GD).
  case driverOutputControl = 0x01
  /// 1 byte: VGH.
  case gateVoltage = 0x03
  /// 3 bytes: VSH1, VSH2, VSL.
  case sourceVoltage = 0x04
  /// 1 byte: 0x01 deep sleep mode 1 (RAM kept), 0x03 mode 2 (RAM lost). Only a hardware reset wakes the chip.
  case deepSleep = 0x10
  /// 1 byte: bit 0 X increments, bit 1 Y increments, bit 2 AM (counter moves in Y first).
  case dataEntryMode = 0x11
  /// Resets registers to their power-on values (not the RAM); BUSY is high while it runs.
  case softwareReset = 0x12
  /// 1 byte: 0x80 selects the internal temperature sensor.
  case temperatureSensor = 0x18
  /// Runs the sequence set by Display Update Control 2; BUSY is high until it ends.
  case masterActivation = 0x20
  /// 2 bytes: RAM options (high nibble RED RAM, low nibble BW RAM: 0 normal, 4 bypass as 0, 8 inverse),
  /// source output mode.
  case displayUpdateControl1 = 0x21
  /// 1 byte: the steps Master Activation runs (see `SSD168xUpdateSequence`).
  case displayUpdateControl2 = 0x22
  /// RAM data follows: the black/white RAM (the new frame). Bit 1 = white.
  case writeBlackWhiteRAM = 0x24
  /// RAM data follows: the RED RAM, which display mode 2 reads as the previous frame.
  case writeRedRAM = 0x26
  /// 1 byte: VCOM.
  case writeVCOM = 0x2C
  /// 153 bytes: the waveform (`SSD1680Waveform`).
  case writeLUT = 0x32
  /// 10 bytes: display options in OTP (ping-pong for mode 2).
  case displayOption = 0x37
  /// 1 byte: border waveform.
  case borderWaveform = 0x3C
  /// 1 byte: end option (EOPT).
  case endOption = 0x3F
  /// 2 bytes: RAM X start and end, in bytes (8 pixels).
  case ramXRange = 0x44
  /// 4 bytes: RAM Y start and end (low, high byte each).
  case ramYRange = 0x45
  /// 1 byte: RAM X address counter.
  case ramXCounter = 0x4E
  /// 2 bytes: RAM Y address counter.
  case ramYCounter = 0x4F

  /// Parameter bytes the command takes; nil for RAM writes, which take any number.
  public var parameterCount: Int? {
    switch self {
    case .softwareReset, .masterActivation: 0
    case .gateVoltage, .deepSleep, .dataEntryMode, .temperatureSensor, .displayUpdateControl2, .writeVCOM,
      .borderWaveform, .endOption, .ramXCounter:
      1
    case .displayUpdateControl1, .ramXRange, .ramYCounter: 2
    case .driverOutputControl, .sourceVoltage: 3
    case .ramYRange: 4
    case .displayOption: 10
    case .writeLUT: SSD1680Waveform.byteCount
    case .writeBlackWhiteRAM, .writeRedRAM: nil
    }
  }
}

/// Bits of Display Update Control 2 (0x22), run in this order by Master Activation (SSD1680 datasheet, command
/// 0x22): enable clock, enable analog, load temperature, load LUT (mode 1; with bit 3 mode 2), display (mode 1;
/// with bit 3 mode 2), disable analog, disable clock.
public enum SSD168xUpdateSequence {
  public static let enableClock: UInt8 = 0x80
  public static let enableAnalog: UInt8 = 0x40
  public static let loadTemperature: UInt8 = 0x20
  public static let loadLUT: UInt8 = 0x10
  public static let mode2: UInt8 = 0x08
  public static let display: UInt8 = 0x04
  public static let disableAnalog: UInt8 = 0x02
  public static let disableClock: UInt8 = 0x01

  /// 0xF7: full refresh with the OTP's mode-1 waveform.
  public static let full: UInt8 = 0xF7
  /// 0xFF: partial refresh with the OTP's mode-2 waveform.
  public static let partialFromOTP: UInt8 = 0xFF
  /// 0xCF: partial refresh with the waveform already written to the LUT register (no LUT load).
  public static let partialFromRegister: UInt8 = 0xCF
}
