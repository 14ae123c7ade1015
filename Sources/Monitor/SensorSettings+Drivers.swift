import BoardParts
import Config
import Sensors

// The board file's [sensor] section mapped onto the drivers' settings: here, in the composition root, so that the
// drivers (Sensors) read no board files and the board files (Config) know no drivers.

extension MAX30102Configuration {
  /// The settings a board file gives, on top of the defaults; checked with `validate()`.
  public init(board sensor: SensorSettings) throws(SensorError) {
    self.init()
    let part = sensor.part == .emulated ? (sensor.emulates ?? .max30102) : sensor.part
    guard part.isMAX3010x else {
      throw .unsupported(message: "\(sensor.path): part '\(sensor.part.rawValue)' is not a MAX3010x")
    }
    self.part = part
    address = sensor.address
    swapRedIR = sensor.swapRedIR
    if let leds = sensor.leds { self.leds = leds }
    if let rate = sensor.sampleRateHz { sampleRateHz = rate }
    if let averaging = sensor.averaging { self.averaging = averaging }
    if let width = sensor.pulseWidthMicroseconds { pulseWidthMicroseconds = width }
    if let range = sensor.adcRangeNanoamps { adcRangeNanoamps = range }
    if let automatic = sensor.automaticLEDCurrent { automaticLEDCurrent = automatic }
    let currents: [(String, Double?, [WritableKeyPath<MAX30102Configuration, UInt8>])] = [
      ("led_current_ma", sensor.ledCurrentMilliamps, [\.redCurrent, \.irCurrent, \.greenCurrent]),
      ("red_current_ma", sensor.redCurrentMilliamps, [\.redCurrent]),
      ("ir_current_ma", sensor.irCurrentMilliamps, [\.irCurrent]),
      ("green_current_ma", sensor.greenCurrentMilliamps, [\.greenCurrent]),
    ]
    for (key, milliamps, fields) in currents {
      guard let milliamps else { continue }
      let code = try Self.currentCode(milliamps: milliamps, location: sensor.location(of: key), key: key)
      for field in fields { self[keyPath: field] = code }
    }
    for key in ["leds", "sample_rate_hz", "averaging", "pulse_width_us", "adc_range_na"] {
      locations[key] = sensor.location(of: key)
    }
    locations["part"] = sensor.location(of: "part")
    try validate()
  }
}

extension ADS1x15Configuration {
  /// The settings a board file gives, on top of the defaults; checked with `validate()`.
  public init(board sensor: SensorSettings) throws(SensorError) {
    self.init()
    guard sensor.part.isADS1x15 else {
      throw .unsupported(message: "\(sensor.path): part '\(sensor.part.rawValue)' is not an ADS1x15")
    }
    part = sensor.part
    address = sensor.address
    if part == .ads1015 { dataRateSPS = 1600 }
    if let channel = sensor.channel { self.channel = channel }
    if let volts = sensor.fullScaleVolts { fullScaleVolts = volts }
    if let rate = sensor.dataRateSPS { dataRateSPS = rate }
    if let rate = sensor.outputRateHz { outputRateHz = rate }
    for key in ["channel", "full_scale_v", "data_rate_sps", "output_rate_hz"] { locations[key] = sensor.location(of: key) }
    try validate()
  }
}
