import BoardParts

/// The settings of a MAX3010x, checked against the datasheet before anything is written to the part.
///
/// The effective sample rate is the ADC rate divided by the averaging (`SMP_AVE`). The default suits HRV:
/// 400 samples/s averaged by 4 = 100 samples/s, 411 µs pulses (18-bit), 4096 nA range, 7 mA LEDs.
public struct MAX30102Configuration: Sendable, Equatable {
  // MARK: - Properties

  public var part: SensorPart = .max30102
  public var address: UInt8 = MAX30102Bits.address
  /// 2: red + IR (SpO2 mode). 3: red + IR + green (multi-LED mode; MAX30101 and MAX30105 only).
  public var leds = 2
  /// ADC sample rate, SPO2_SR: 50, 100, 200, 400, 800, 1000, 1600 or 3200.
  public var sampleRateHz = 400
  /// Samples averaged per FIFO sample, SMP_AVE: 1, 2, 4, 8, 16 or 32.
  public var averaging = 4
  /// LED pulse width, LED_PW: 69, 118, 215 or 411 µs (15 to 18 bit resolution).
  public var pulseWidthMicroseconds = 411
  /// ADC full scale, SPO2_ADC_RGE: 2048, 4096, 8192 or 16384 nA.
  public var adcRangeNanoamps = 4096
  /// Starting LED pulse amplitudes, register codes (0.2 mA per step).
  public var redCurrent: UInt8 = 35
  public var irCurrent: UInt8 = 35
  public var greenCurrent: UInt8 = 35
  /// Clone boards with the red and IR LEDs swapped: FIFO slot 1 and LED1_PA are then the IR LED.
  public var swapRedIR = false
  /// Keep the DC level at 50-80 % of full scale by adjusting the LED currents.
  public var automaticLEDCurrent = true
  /// "file:line" of each setting, for messages about settings that came from a board file.
  public var locations: [String: String] = [:]

  // MARK: - Datasheet tables

  /// SPO2_SR codes (Table 6).
  public static let sampleRates = [50, 100, 200, 400, 800, 1000, 1600, 3200]
  /// SMP_AVE codes 0-5 (Table 3; codes 6 and 7 also mean 32).
  public static let averagings = [1, 2, 4, 8, 16, 32]
  /// LED_PW codes with their ADC resolution (Table 7).
  public static let pulseWidths = [(69, 15), (118, 16), (215, 17), (411, 18)]
  /// SPO2_ADC_RGE codes (Table 5).
  public static let adcRanges = [2048, 4096, 8192, 16384]
  /// Highest allowed sample rate per pulse width in SpO2 mode (Table 11: two LEDs share each sample period).
  public static let spo2MaximumRate = [69: 1600, 118: 1000, 215: 800, 411: 400]
  /// The same with three LEDs. The datasheets give no multi-LED table; the SpO2 limit scaled by 2/3 (three
  /// pulses in the period instead of two), rounded down to a valid rate, is a conservative rule.
  public static let threeLEDMaximumRate = [69: 1000, 118: 400, 215: 400, 411: 200]
  /// The beat detector works from 25 to 1000 samples/s (docs/DESIGN: "Any rate from 25 to 1000 Hz works").
  public static let effectiveRateRange = 25.0...1000.0

  // MARK: - Initialization

  public init() {}

  // MARK: - Public

  /// Samples per second of each channel in the FIFO.
  public var effectiveSampleRateHz: Double { Double(sampleRateHz) / Double(averaging) }

  /// ADC resolution in bits for the pulse width.
  public var resolutionBits: Int { Self.pulseWidths.first { $0.0 == pulseWidthMicroseconds }?.1 ?? 18 }

  /// Bytes of one FIFO sample: 3 per active LED.
  public var bytesPerSample: Int { leds * MAX30102Bits.bytesPerChannel }

  /// Rejects values and combinations the datasheet does not allow, naming the board-file line.
  public func validate() throws(SensorError) {
    try check(Self.sampleRates.contains(sampleRateHz), "sample_rate_hz",
      "\(sampleRateHz) is not a MAX3010x sample rate; use one of \(Self.list(Self.sampleRates))")
    try check(Self.averagings.contains(averaging), "averaging",
      "\(averaging) is not a MAX3010x averaging; use one of \(Self.list(Self.averagings))")
    try check(Self.pulseWidths.contains { $0.0 == pulseWidthMicroseconds }, "pulse_width_us",
      "\(pulseWidthMicroseconds) µs is not a MAX3010x pulse width; use one of \(Self.list(Self.pulseWidths.map(\.0)))")
    try check(Self.adcRanges.contains(adcRangeNanoamps), "adc_range_na",
      "\(adcRangeNanoamps) nA is not a MAX3010x ADC range; use one of \(Self.list(Self.adcRanges))")
    try check(leds == 2 || leds == 3, "leds", "leds must be 2 (red + IR) or 3 (red + IR + green)")
    try check(leds == 2 || part != .max30102, "leds",
      "the MAX30102 has only red and IR LEDs; use leds = 2, or part = \"max30101\" / \"max30105\" for green")
    let table = leds == 3 ? Self.threeLEDMaximumRate : Self.spo2MaximumRate
    let maximum = table[pulseWidthMicroseconds] ?? 0
    let fasterWidths = table.filter { $0.value >= sampleRateHz }.keys.sorted()
    let alternative = fasterWidths.isEmpty
      ? "lower the sample rate"
      : "use pulse_width_us = \(fasterWidths.last!) or shorter (\(leds == 3 ? "three-LED" : "SpO2") mode)"
    try check(sampleRateHz <= maximum, "sample_rate_hz",
      "\(sampleRateHz) samples/s with \(pulseWidthMicroseconds) µs pulses is not allowed by the datasheet "
        + "(\(leds) LEDs: at most \(maximum) samples/s at that width); lower sample_rate_hz or \(alternative)")
    try check(Self.effectiveRateRange.contains(effectiveSampleRateHz), "averaging",
      "\(sampleRateHz) samples/s averaged by \(averaging) gives \(format(effectiveSampleRateHz)) samples/s; the beat "
        + "detector needs 25-1000 (100 or more for HRV): change sample_rate_hz or averaging")
  }

  /// LED pulse amplitude code for a current in mA (0-51 mA in 0.2 mA steps).
  public static func currentCode(milliamps: Double, location: String, key: String) throws(SensorError) -> UInt8 {
    guard milliamps >= 0 && milliamps <= 51 else {
      throw .invalidSettings(location: location, message: "\(key) \(milliamps) mA is outside the MAX3010x's 0-51 mA")
    }
    return UInt8((milliamps / MAX30102Bits.milliampsPerStep).rounded())
  }

  /// One line for sidecars and logs.
  public var summary: String {
    var text = "\(part.rawValue) at \(hex(address)): \(sampleRateHz) samples/s averaged by \(averaging) = "
      + "\(format(effectiveSampleRateHz)) samples/s, \(pulseWidthMicroseconds) us pulses (\(resolutionBits)-bit), "
      + "\(adcRangeNanoamps) nA range, LEDs red \(format(Double(redCurrent) * 0.2)) mA / IR "
      + "\(format(Double(irCurrent) * 0.2)) mA"
    if leds == 3 { text += " / green \(format(Double(greenCurrent) * 0.2)) mA" }
    if swapRedIR { text += ", red/IR swapped" }
    text += automaticLEDCurrent ? ", automatic LED current" : ", fixed LED current"
    return text
  }

  // MARK: - Register values

  /// SpO2 Configuration byte: ADC_RGE[6:5] | SR[4:2] | LED_PW[1:0].
  var spo2ConfigurationByte: UInt8 {
    let range = UInt8(Self.adcRanges.firstIndex(of: adcRangeNanoamps) ?? 1)
    let rate = UInt8(Self.sampleRates.firstIndex(of: sampleRateHz) ?? 3)
    let width = UInt8(Self.pulseWidths.firstIndex { $0.0 == pulseWidthMicroseconds } ?? 3)
    typealias Fields = MAX30102Register.SpO2Configuration
    return Fields.adcRange.set(range) | Fields.sampleRate.set(rate) | Fields.pulseWidth.set(width)
  }

  /// FIFO Configuration byte: SMP_AVE, rollover off (overflow loses the newest samples, so what the FIFO holds
  /// stays contiguous with what was read before, and OVF_COUNTER says how many were lost), A_FULL at 0 empty
  /// slots (set only when all 32 are unread, to tell a full FIFO from an empty one).
  var fifoConfigurationByte: UInt8 {
    MAX30102Register.FIFOConfiguration.averaging.set(UInt8(Self.averagings.firstIndex(of: averaging) ?? 2))
  }

  // MARK: - Private

  private func check(_ condition: Bool, _ key: String, _ message: String) throws(SensorError) {
    guard !condition else { return }
    throw .invalidSettings(location: locations[key] ?? "sensor settings", message: message)
  }

  private static func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: ", ") }
}
