import BoardParts
import Synchronization

/// A register-level ADS1115/ADS1015 with an analog pulse sensor on one input: the pointer register, the config
/// register, and in continuous mode a new conversion every 1/DR s (with the part's oscillator error) of the
/// sensor's voltage. The sensor is modelled on the common "pulse sensor" boards: an amplified, filtered
/// photoplethysmogram centred on half the 3.3 V supply, pulses up. Thread-safe: entry points take `lock`.
public final class ADS1x15Emulator: EmulatedI2CDevice, @unchecked Sendable {
  public struct Options: Sendable {
    public var part: SensorPart = .ads1115
    /// The input the sensor is wired to.
    public var channel = 0
    /// Sensor output: resting level and pulse amplitude (V per unit of the normalised wave).
    public var restingVolts = 1.65
    public var pulseVolts = 0.25
    public var noiseVolts = 0.002
    /// ±10 % is the datasheet's data-rate tolerance.
    public var oscillatorError = 0.0

    public init() {}
  }

  public let waveform: PulseWaveform
  public let options: Options
  private let clock: any SensorClock
  private let poweredOnAt: Int64
  private var pointer: UInt8 = 0
  private var config = ADS1x15Register.configDefault
  private var thresholds: [UInt16] = [0x8000, 0x7FFF]
  private var runStart: Int64?
  /// Guards the registers and the run.
  private let lock = Mutex(())

  public init(waveform: PulseWaveform, clock: any SensorClock, options: Options = Options()) {
    self.waveform = waveform
    self.clock = clock
    self.options = options
    poweredOnAt = clock.now()
  }

  public func receive(_ bytes: [UInt8]) {
    lock.withLock { _ in receiveLocked(bytes) }
  }

  public func transmit(count: Int) -> [UInt8] {
    lock.withLock { _ in transmitLocked(count: count) }
  }

  /// The index of the latest completed conversion of the current run (nil before the first).
  public func latestConversionIndex() -> Int? { lock.withLock { _ in latestIndex() } }

  /// The value of conversion `index` of the current run (for tests).
  public func conversion(index: Int) -> Int16 { lock.withLock { _ in sampleValue(index: index) } }

  private func receiveLocked(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    pointer = first & 0x03
    guard bytes.count >= 3 else { return }
    let value = UInt16(bytes[1]) << 8 | UInt16(bytes[2])
    switch pointer {
    case ADS1x15Register.config:
      config = value & 0x7FFF | 0x8000  // OS reads back 1: no single-shot conversion in progress
      runStart = value & ADS1x15Register.singleShotMode == 0 ? clock.now() : nil
    case ADS1x15Register.lowThreshold: thresholds[0] = value
    case ADS1x15Register.highThreshold: thresholds[1] = value
    default: break
    }
  }

  private func transmitLocked(count: Int) -> [UInt8] {
    let word: UInt16
    switch pointer {
    case ADS1x15Register.conversion: word = UInt16(bitPattern: latestConversion())
    case ADS1x15Register.config: word = config
    case ADS1x15Register.lowThreshold: word = thresholds[0]
    default: word = thresholds[1]
    }
    return (0..<count).map { $0 % 2 == 0 ? UInt8(word >> 8) : UInt8(word & 0xFF) }
  }

  private func latestIndex() -> Int? {
    guard let start = runStart else { return nil }
    let index = Int(Double(clock.now() - start) / period) - 1
    return index >= 0 ? index : nil
  }

  private func sampleValue(index: Int) -> Int16 {
    guard let start = runStart else { return 0 }
    let time = Double(start - poweredOnAt) + Double(index + 1) * period
    let mux = Int(config >> 12 & 0x07)
    let volts: Double
    if mux == 0b100 + options.channel {
      volts = options.restingVolts + options.pulseVolts * waveform.value(at: time / 1e9)
        + options.noiseVolts * DeterministicNoise.triangular(index, 5)
    } else {
      volts = options.noiseVolts * DeterministicNoise.triangular(index, 6)
    }
    let fullScale = ADS1x15Register.fullScales[min(5, Int(config >> 9 & 0x07))]
    let counts = (volts / fullScale * 32768).rounded()
    let clipped = Int16(min(32767, max(-32768, counts)))
    return options.part == .ads1015 ? clipped / 16 * 16 : clipped
  }

  private var period: Double {
    let rates = options.part == .ads1015 ? ADS1x15Register.ads1015Rates + [3300] : ADS1x15Register.ads1115Rates
    return 1e9 / (Double(rates[Int(config >> 5 & 0x07)]) * (1 + options.oscillatorError))
  }

  private func latestConversion() -> Int16 {
    guard let index = latestIndex() else { return 0 }
    return sampleValue(index: index)
  }
}
