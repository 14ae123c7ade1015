import LinuxIO
import Signals

/// Why a pulse source cannot go on. Each case says what is wrong and what to do; `sysexitCode` is what the CLI
/// exits with.
public enum SensorError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A system call on the bus failed (missing node, permission, NACK, bus error).
  case device(DeviceError)
  /// The device at the address is not the part the board file names.
  case wrongPart(bus: String, address: UInt8, found: UInt8, expected: UInt8, part: String)
  /// The part did not come out of reset in time.
  case resetTimedOut(bus: String, address: UInt8)
  /// A setting the datasheet forbids or the pipeline cannot use; `location` is "file:line" when from a board file.
  case invalidSettings(location: String, message: String)
  /// The board's sensor has no driver here, or the combination is not supported.
  case unsupported(message: String)
  /// A recording (replay or emulator feed) could not be read.
  case recording(RecordingError)
  /// The samples arrive at a rate other than configured (a clone with another oscillator, or a wrong setting).
  case sampleRateMismatch(measuredHz: Double, configuredHz: Double)

  public var description: String {
    switch self {
    case .device(let error):
      return error.description
    case .wrongPart(let bus, let address, let found, let expected, let part):
      return "\(bus): the device at \(hex(address)) reports part id \(hex(found)), not \(hex(expected)) (\(part)); "
        + "check that the board file names the right part and address ('i2cdetect -y <bus>' lists what answers)"
    case .resetTimedOut(let bus, let address):
      return "\(bus): the sensor at \(hex(address)) did not finish its reset; power-cycle it and check its 3.3 V supply"
    case .invalidSettings(let location, let message):
      return "\(location): \(message)"
    case .unsupported(let message):
      return message
    case .recording(let error):
      return error.description
    case .sampleRateMismatch(let measured, let configured):
      return "the sensor delivers \(format(measured)) samples/s, configured \(format(configured)); check the board "
        + "file's sample_rate_hz and averaging (a clone part may run on a different oscillator)"
    }
  }

  /// sysexits: 69 for missing or unreachable hardware, 65 for bad settings or data, else the recording's code.
  public var sysexitCode: Int32 {
    switch self {
    case .device, .wrongPart, .resetTimedOut, .sampleRateMismatch, .unsupported: 69
    case .invalidSettings: 65
    case .recording(let error): error.sysexitCode
    }
  }
}

func hex(_ value: UInt8) -> String {
  let digits = String(value, radix: 16)
  return "0x" + (digits.count < 2 ? "0" + digits : digits)
}

func format(_ value: Double) -> String {
  let rounded = (value * 10).rounded() / 10
  return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
