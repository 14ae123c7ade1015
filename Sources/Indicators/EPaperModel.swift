/// The e-paper panels stressmon drives, with the facts their init sequences need. Values come from the
/// controller datasheets (Solomon Systech SSD1680 rev 1.0, SSD1681 rev 0h) and the panel makers' public
/// drivers (Waveshare e-Paper `epd2in13_V4`, `epd2in9_V2`, `epd1in54_V2`; GxEPD2 `GxEPD2_290_T94_V2`).
public struct EPaperModel: Sendable, Hashable, CustomStringConvertible {
  public enum Controller: String, Sendable, Hashable {
    case ssd1680, ssd1681
  }

  /// Where the partial-refresh (display mode 2) waveform comes from.
  public enum PartialWaveform: Sendable, Hashable {
    /// Programmed in the panel's OTP; `0x22 = 0xFF` loads and runs it.
    case otp
    /// Not in OTP (Waveshare 2.9" V2): written to the LUT register (0x32) before each partial refresh.
    case register(SSD1680Waveform)
  }

  // MARK: - Identity

  /// The name used on the command line and in board files.
  public var name: String
  public var title: String
  public var controller: Controller

  // MARK: - Geometry

  /// Pixels per gate line (sources) and gate lines, as the controller addresses RAM.
  public var nativeWidth: Int
  public var nativeHeight: Int
  /// Clockwise quarter turns that take a frame in reading orientation to the native orientation.
  public var quarterTurnsToNative: Int

  // MARK: - Init sequence facts

  /// Byte 3 of Driver Output Control (0x01): gate scan direction (bit 0, TB) and interlacing (bit 1, SM).
  public var gateScan: UInt8
  /// Data Entry Mode (0x11): bit 0 X increments, bit 1 Y increments, bit 2 Y is the fast axis.
  public var dataEntryMode: UInt8
  /// Border Waveform Control (0x3C) for full and partial refreshes.
  public var borderFull: UInt8
  public var borderPartial: UInt8
  /// Display Update Control 1 (0x21) bytes, if the vendor sets them (RAM options; source outputs S8-S167).
  public var updateControl1: [UInt8]?
  public var partialWaveform: PartialWaveform
  /// Typical BUSY time of a full and a partial refresh (vendor specifications); the emulator takes this long.
  public var fullRefreshMilliseconds: Int
  public var partialRefreshMilliseconds: Int

  // MARK: - Panels

  /// Waveshare 2.13" V4: SSD1680, 122×250, partial waveform in OTP.
  public static let waveshare2in13V4 = EPaperModel(
    name: "waveshare-2in13-v4", title: "Waveshare 2.13\" V4 (SSD1680, 250×122)", controller: .ssd1680,
    nativeWidth: 122, nativeHeight: 250, quarterTurnsToNative: 3, gateScan: 0x00, dataEntryMode: 0x03,
    borderFull: 0x05, borderPartial: 0x80, updateControl1: [0x00, 0x80], partialWaveform: .otp,
    fullRefreshMilliseconds: 2_000, partialRefreshMilliseconds: 300)

  /// Waveshare 2.9" V2: SSD1680, 128×296, no partial waveform in OTP (GxEPD2 notes it), so one is loaded.
  public static let waveshare2in9V2 = EPaperModel(
    name: "waveshare-2in9-v2", title: "Waveshare 2.9\" V2 (SSD1680, 296×128)", controller: .ssd1680,
    nativeWidth: 128, nativeHeight: 296, quarterTurnsToNative: 3, gateScan: 0x00, dataEntryMode: 0x03,
    borderFull: 0x05, borderPartial: 0x80, updateControl1: [0x00, 0x80],
    partialWaveform: .register(.ssd1680Partial), fullRefreshMilliseconds: 3_000, partialRefreshMilliseconds: 500)

  /// Waveshare 1.54" V2: SSD1681, 200×200, gates scanned bottom-up (TB = 1) with Y decrementing, as the vendor
  /// drives it.
  public static let waveshare1in54V2 = EPaperModel(
    name: "waveshare-1in54-v2", title: "Waveshare 1.54\" V2 (SSD1681, 200×200)", controller: .ssd1681,
    nativeWidth: 200, nativeHeight: 200, quarterTurnsToNative: 0, gateScan: 0x01, dataEntryMode: 0x01,
    borderFull: 0x01, borderPartial: 0x80, updateControl1: nil, partialWaveform: .otp,
    fullRefreshMilliseconds: 2_000, partialRefreshMilliseconds: 500)

  public static let all: [EPaperModel] = [.waveshare2in13V4, .waveshare2in9V2, .waveshare1in54V2]

  /// The model called `name` (case-insensitive), nil if unknown.
  public static func named(_ name: String) -> EPaperModel? {
    all.first { $0.name == name.lowercased() }
  }

  // MARK: - Derived

  /// Frame size in reading orientation (what layouts draw).
  public var layoutWidth: Int { quarterTurnsToNative % 2 == 0 ? nativeWidth : nativeHeight }
  public var layoutHeight: Int { quarterTurnsToNative % 2 == 0 ? nativeHeight : nativeWidth }
  /// Bytes per RAM row (8 pixels a byte).
  public var rowBytes: Int { (nativeWidth + 7) / 8 }

  public var description: String { name }
}
