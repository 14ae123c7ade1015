import BoardParts
import LinuxIO

/// The ADS1115 (16-bit) and ADS1015 (12-bit) ADCs (TI datasheet SBAS444, "Register Map"), for the analog pulse
/// sensors hobbyists wire to a Pi, which has no ADC of its own.
public enum ADS1x15Register {
  /// Conversion register: the latest result, 16-bit big-endian two's complement (ADS1015: 12 bits, left-justified).
  public static let conversion: UInt8 = 0x00
  /// Config register: OS[15] MUX[14:12] PGA[11:9] MODE[8] DR[7:5] COMP_MODE[4] COMP_POL[3] COMP_LAT[2] COMP_QUE[1:0].
  public static let config: UInt8 = 0x01
  public static let lowThreshold: UInt8 = 0x02
  public static let highThreshold: UInt8 = 0x03

  /// Power-on value of the config register.
  public static let configDefault: UInt16 = 0x8583
  /// MODE = 1: single-shot (and power-down between conversions).
  public static let singleShotMode: UInt16 = 0x0100
  /// COMP_QUE = 11: comparator and ALERT/RDY off (we poll).
  public static let comparatorDisabled: UInt16 = 0x0003
  /// PGA full-scale ranges in volts, by code.
  public static let fullScales = [6.144, 4.096, 2.048, 1.024, 0.512, 0.256]
  /// Data rates in samples/s, by DR code.
  public static let ads1115Rates = [8, 16, 32, 64, 128, 250, 475, 860]
  public static let ads1015Rates = [128, 250, 490, 920, 1600, 2400, 3300]
}

/// Settings of an ADS1x15 used for a pulse sensor on one single-ended input.
public struct ADS1x15Configuration: Sendable, Equatable {
  public var part: SensorPart = .ads1115
  public var address: UInt8 = 0x48
  /// AIN0-AIN3, measured against GND.
  public var channel = 0
  /// PGA range: the pulse sensor's 0-3.3 V output fits 4.096 V.
  public var fullScaleVolts = 4.096
  /// Conversion rate: at least 128 samples/s, and at least twice the output rate so every sample is fresh.
  public var dataRateSPS = 860
  /// Samples per second handed out, timed by the host clock.
  public var outputRateHz = 100.0
  public var locations: [String: String] = [:]

  public init() {}

  public var rates: [Int] { part == .ads1015 ? ADS1x15Register.ads1015Rates : ADS1x15Register.ads1115Rates }

  public func validate() throws(SensorError) {
    func fail(_ key: String, _ message: String) -> SensorError {
      .invalidSettings(location: locations[key] ?? "sensor settings", message: message)
    }
    guard (0...3).contains(channel) else { throw fail("channel", "channel \(channel) does not exist; use 0-3 (AIN0-AIN3)") }
    guard ADS1x15Register.fullScales.contains(fullScaleVolts) else {
      throw fail("full_scale_v", "\(fullScaleVolts) V is not an ADS1x15 range; use one of "
        + ADS1x15Register.fullScales.map { "\($0)" }.joined(separator: ", "))
    }
    guard rates.contains(dataRateSPS) else {
      throw fail("data_rate_sps", "\(dataRateSPS) is not an \(part.rawValue) data rate; use one of "
        + rates.map(String.init).joined(separator: ", "))
    }
    guard dataRateSPS >= 128 else {
      throw fail("data_rate_sps", "\(dataRateSPS) samples/s is too slow for a pulse wave; use 128 or more")
    }
    guard (25...1000).contains(outputRateHz) else {
      throw fail("output_rate_hz", "\(format(outputRateHz)) samples/s is outside the beat detector's 25-1000")
    }
    guard Double(dataRateSPS) >= 2 * outputRateHz else {
      throw fail("data_rate_sps", "\(dataRateSPS) conversions/s cannot give fresh samples at \(format(outputRateHz))/s; "
        + "use a data rate of at least twice output_rate_hz")
    }
  }

  /// Config register value: continuous conversion of AINx vs GND, comparator off.
  public var configWord: UInt16 {
    let mux = UInt16(0b100 + channel) << 12
    let pga = UInt16(ADS1x15Register.fullScales.firstIndex(of: fullScaleVolts) ?? 1) << 9
    let rate = UInt16(rates.firstIndex(of: dataRateSPS) ?? 7) << 5
    return mux | pga | rate | ADS1x15Register.comparatorDisabled
  }

  public var summary: String {
    "\(part.rawValue) at \(hex(address)): AIN\(channel) vs GND, ±\(fullScaleVolts) V, \(dataRateSPS) conversions/s, "
      + "sampled at \(format(outputRateHz))/s"
  }
}

/// The ADS1x15 on an `I2CBus`: continuous conversion, polled. There is no identity register; writing the
/// config and reading it back is the presence check.
public final class ADS1x15Driver {
  public let bus: any I2CBus
  public let configuration: ADS1x15Configuration

  public init(bus: any I2CBus, configuration: ADS1x15Configuration) {
    self.bus = bus
    self.configuration = configuration
  }

  /// Starts continuous conversion and checks the part took the config.
  public func start() throws(SensorError) {
    try configuration.validate()
    let word = configuration.configWord
    try writeWord(ADS1x15Register.config, word)
    let back = try readWord(ADS1x15Register.config)
    // OS reads 1 when no single-shot conversion is running; the rest must read back as written.
    guard back & 0x7FFF == word & 0x7FFF else {
      throw .unsupported(message: "\(bus.path): the device at \(hex(configuration.address)) did not keep the ADS1x15 "
        + "config (wrote 0x\(String(word, radix: 16)), read 0x\(String(back, radix: 16))); check the part and address")
    }
  }

  /// The latest conversion, in counts (ADS1015: 12-bit).
  public func readConversion() throws(SensorError) -> Int32 {
    let raw = Int16(bitPattern: try readWord(ADS1x15Register.conversion))
    return configuration.part == .ads1015 ? Int32(raw >> 4) : Int32(raw)
  }

  /// Single-shot mode: the part powers down after the conversion in progress.
  public func shutdown() throws(SensorError) {
    try writeWord(ADS1x15Register.config, configuration.configWord | ADS1x15Register.singleShotMode)
  }

  private func readWord(_ register: UInt8) throws(SensorError) -> UInt16 {
    do {
      let bytes = try bus.readRegisters(address: configuration.address, register: register, count: 2)
      return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    } catch {
      throw .device(error)
    }
  }

  private func writeWord(_ register: UInt8, _ value: UInt16) throws(SensorError) {
    do {
      try bus.writeRegisters(
        address: configuration.address, register: register, bytes: [UInt8(value >> 8), UInt8(value & 0xFF)])
    } catch {
      throw .device(error)
    }
  }
}
