/// The pulse sensors stressmon drives.
public enum SensorPart: String, Sendable, CaseIterable {
  case max30102, max30101, max30105, ads1115, ads1015
  /// A register-level MAX30102 emulator fed with a recording (the simulated board).
  case emulated

  /// The 7-bit I2C address the part answers on by default (MAX3010x: fixed 0x57; ADS1x15: 0x48 with ADDR to GND).
  public var defaultAddress: UInt8 {
    switch self {
    case .max30102, .max30101, .max30105, .emulated: 0x57
    case .ads1115, .ads1015: 0x48
    }
  }

  /// Whether the part is one of the MAX3010x optical sensors (same register map).
  public var isMAX3010x: Bool { self == .max30102 || self == .max30101 || self == .max30105 }
  public var isADS1x15: Bool { self == .ads1115 || self == .ads1015 }
}
