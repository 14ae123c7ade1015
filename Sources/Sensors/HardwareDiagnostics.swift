import FoundationEssentials
import LinuxIO
import Platform

/// One check of `stressmon doctor`: what was checked, how it went, and the fix when it failed.
public struct DiagnosticCheck: Sendable, Equatable, Codable {
  public enum Status: String, Sendable, Codable {
    case pass, fail
    /// Not run because a check it depends on failed, or it does not apply to this board.
    case skip
  }

  public var name: String
  public var status: Status
  public var detail: String
  public var fix: String?

  public init(name: String, status: Status, detail: String, fix: String? = nil) {
    self.name = name
    self.status = status
    self.detail = detail
    self.fix = fix
  }
}

/// The hardware checks behind `stressmon doctor` that concern device nodes and the sensor. Each returns a
/// result instead of throwing: doctor reports everything at once.
public enum HardwareDiagnostics {
  // MARK: - Device nodes and permissions

  /// The node exists and opens read-write.
  public static func deviceNode(_ path: String, kind: DeviceKind, name: String) -> DiagnosticCheck {
    let code: Int32
    do {
      try FileDescriptor.open(path, .readWrite).close()
      return DiagnosticCheck(name: name, status: .pass, detail: "\(path) exists and opens read-write")
    } catch {
      code = error.rawValue
    }
    let error = DeviceError(kind: kind, path: path, operation: "open", errno: code)
    let what = error.isMissing ? "\(path) does not exist" : "\(path) cannot be opened: \(error.systemMessage)"
    return DiagnosticCheck(name: name, status: .fail, detail: what, fix: error.hint)
  }

  /// Whether this process may use nodes of `group` (root, or a member).
  public static func groupMembership(_ group: String) -> DiagnosticCheck {
    let name = "group \(group)"
    if geteuid() == 0 {
      return DiagnosticCheck(
        name: name, status: .pass,
        detail: "running as root (a service running as another user needs group '\(group)' too)")
    }
    guard let entry = getgrnam(group) else {
      return DiagnosticCheck(
        name: name, status: .fail, detail: "there is no group '\(group)' on this system",
        fix: "Raspberry Pi OS creates it when the interface is enabled (raspi-config); elsewhere create it "
          + "('sudo groupadd \(group)') and give it the device nodes with a udev rule")
    }
    let gid = entry.pointee.gr_gid
    let count = getgroups(0, nil)
    var groups = [gid_t](repeating: 0, count: Int(max(0, count)))
    let filled = getgroups(count, &groups)
    let member = getegid() == gid || groups.prefix(Int(max(0, filled))).contains(gid)
    let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "this user"
    if member {
      return DiagnosticCheck(name: name, status: .pass, detail: "\(user) is in group '\(group)'")
    }
    return DiagnosticCheck(
      name: name, status: .fail, detail: "\(user) is not in group '\(group)'",
      fix: "sudo usermod -aG \(group) \(user), then log out and in again")
  }

  /// Whether a kernel driver (the IIO max30102 driver) has claimed the sensor's address: i2c-dev then refuses
  /// it (EBUSY), and the kernel, not stressmon, owns the FIFO.
  public static func kernelDriver(bus: Int, address: UInt8, sysfsRoot: String = "/sys") -> DiagnosticCheck {
    let device = "\(bus)-00" + String(hex(address).dropFirst(2))
    let link = "\(sysfsRoot)/bus/i2c/devices/\(device)/driver"
    let name = "kernel driver"
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else {
      return DiagnosticCheck(name: name, status: .pass, detail: "no kernel driver has claimed \(device)")
    }
    let driver = target.split(separator: "/").last.map(String.init) ?? target
    return DiagnosticCheck(
      name: name, status: .fail, detail: "the kernel's '\(driver)' driver has claimed \(device) (\(link))",
      fix: "release it now with 'echo \(device) | sudo tee /sys/bus/i2c/drivers/\(driver)/unbind'; to keep it "
        + "released, remove the dtoverlay line that adds the sensor from /boot/firmware/config.txt, or "
        + "'echo blacklist \(driver) | sudo tee /etc/modprobe.d/stressmon.conf'")
  }

  // MARK: - The sensor

  /// Identity and measured sample rate of a MAX3010x on `bus` (leaves it shut down). `measureFor` is in
  /// nanoseconds of `clock`.
  public static func max3010x(
    bus: any I2CBus, configuration: MAX30102Configuration, clock: any SensorClock, measureFor: Int64
  ) async -> [DiagnosticCheck] {
    let driver = MAX30102Driver(bus: bus, configuration: configuration, clock: clock)
    let address = hex(configuration.address)
    var checks = [i2cAdapter(bus: bus, driver: driver)]
    guard checks[0].status == .pass else { return checks }
    do {
      let part = try driver.partID()
      let revision = try driver.revisionID()
      guard part == MAX30102Bits.expectedPartID else {
        return checks + [DiagnosticCheck(
          name: "sensor identity", status: .fail,
          detail: "the device at \(address) reports PART_ID \(hex(part)), a MAX3010x reports 0x15",
          fix: "check that the board file names the right part and address ('i2cdetect -y <bus>')")]
      }
      checks.append(DiagnosticCheck(
        name: "sensor identity", status: .pass,
        detail: "\(configuration.part.rawValue) at \(address): PART_ID 0x15, REV_ID \(hex(revision))"))
    } catch {
      return checks + [DiagnosticCheck(
        name: "sensor identity", status: .fail, detail: "no answer at \(address) on \(bus.path): \(error)",
        fix: fixText(error, address: address))]
    }
    do {
      try await driver.start()
      let measured = try await driver.measureSampleRate(duration: measureFor)
      let temperature = try await driver.readTemperature()
      try? driver.shutdown()
      let configured = configuration.effectiveSampleRateHz
      let ok = abs(measured - configured) <= configured * 0.05
      checks.append(DiagnosticCheck(
        name: "sample rate", status: ok ? .pass : .fail,
        detail: "measured \(format(measured)) samples/s, configured \(format(configured)) "
          + "(\(configuration.sampleRateHz)/s averaged by \(configuration.averaging)); die \(format(temperature)) °C",
        fix: ok ? nil : SensorError.sampleRateMismatch(measuredHz: measured, configuredHz: configured).description))
    } catch {
      try? driver.shutdown()
      checks.append(DiagnosticCheck(
        name: "sample rate", status: .fail, detail: "could not sample: \(error)", fix: fixText(error, address: address)))
    }
    return checks
  }

  /// What the adapter can do for the MAX3010x's FIFO: plain I2C bursts, SMBus I2C-block reads (the fallback on an
  /// SMBus-only adapter), or neither (the sensor cannot be read).
  static func i2cAdapter(bus: any I2CBus, driver: MAX30102Driver) -> DiagnosticCheck {
    let adapter = bus.adapter
    let samples = driver.samplesPerTransfer
    let bytes = samples * driver.configuration.bytesPerSample
    switch adapter.functionality.blockRead {
    case .combined:
      return DiagnosticCheck(
        name: "i2c adapter", status: .pass,
        detail: "'\(adapter.name)' speaks plain I2C: FIFO bursts of \(samples) samples (\(bytes) bytes)")
    case .smbusI2CBlock:
      return DiagnosticCheck(
        name: "i2c adapter", status: .pass,
        detail: "'\(adapter.name)' speaks SMBus only (no I2C_FUNC_I2C): the FIFO is read in SMBus I2C-block reads of "
          + "\(samples) samples (\(bytes) bytes)")
    case nil:
      return DiagnosticCheck(
        name: "i2c adapter", status: .fail,
        detail: "'\(adapter.name)' has neither I2C_FUNC_I2C nor I2C_FUNC_SMBUS_READ_I2C_BLOCK (it offers "
          + "\(adapter.functionality))",
        fix: "connect the sensor to an adapter that has one of them (a Raspberry Pi's I2C bus 1: dtparam=i2c_arm=on)")
    }
  }

  /// An ADS1x15: the config write-and-read-back, and one conversion.
  public static func ads1x15(bus: any I2CBus, configuration: ADS1x15Configuration) -> [DiagnosticCheck] {
    let driver = ADS1x15Driver(bus: bus, configuration: configuration)
    do {
      try driver.start()
      let counts = try driver.readConversion()
      try? driver.shutdown()
      let fullCounts = configuration.part == .ads1015 ? 2048.0 : 32768.0
      let volts = Double(counts) / fullCounts * configuration.fullScaleVolts
      return [DiagnosticCheck(
        name: "sensor identity", status: .pass,
        detail: "\(configuration.summary); AIN\(configuration.channel) reads \(format(volts)) V")]
    } catch {
      return [DiagnosticCheck(
        name: "sensor identity", status: .fail, detail: "\(error)",
        fix: fixText(error, address: hex(configuration.address)))]
    }
  }

  private static func fixText(_ error: SensorError, address: String) -> String {
    if case .device(let device) = error { return device.hint }
    if case .invalidSettings = error { return "fix the board file's [sensor] settings" }
    return "check the wiring (SDA, SCL, 3.3 V, GND) and that the board file's address is \(address)"
  }
}
