import LinuxIO
import Logging
import Platform

/// A MAX30102 (and MAX30101/MAX30105: same register map, a third LED) on an `I2CBus`.
///
/// Follows the datasheet's sequence and the Linux driver's habits (drivers/iio/health/max30102.c): check the
/// identity first, reset and wait, configure, clear the FIFO pointers, then start. FIFO reading, overflow and
/// recovery are in `MAX30102FIFO.swift`. Not thread-safe: owned by one source or one test.
public final class MAX30102Driver {
  // MARK: - Properties

  public let bus: any I2CBus
  public let configuration: MAX30102Configuration
  let clock: any SensorClock
  let logger = Logger(label: "stressmon.sensors")

  /// LED pulse amplitude codes now in the part (0.2 mA per step).
  public private(set) var redCurrent: UInt8
  public private(set) var irCurrent: UInt8
  public private(set) var greenCurrent: UInt8

  /// Timeline index of the next sample the FIFO will give us (counting lost samples).
  var nextSampleIndex = 0
  /// Samples lost after the last sample delivered, reported as the next block's `gapBefore`.
  var pendingGap = 0
  /// A sample whose production time is known to within half a period: sample `anchorIndex` at `anchorTime`.
  /// Refreshed at every drain; used to size gaps the overflow counter cannot (it saturates at 31).
  var anchorTime: Int64 = 0
  var anchorIndex = 0
  public private(set) var isRunning = false

  /// Samples per burst transfer at most: under 32, so that after a failed transfer the read pointer tells how many
  /// samples it popped (a whole FIFO's worth would wrap the pointer to where it was).
  static let maximumSamplesPerTransfer = 16
  /// Attempts per register access or burst before the error is reported.
  static let attempts = 4
  /// How long a reset may take before we give up (the datasheet gives no figure; the part takes well under 1 ms).
  static let resetTimeout: Int64 = 100_000_000
  static let resetPollInterval: Int64 = 1_000_000

  // MARK: - Initialization

  public init(bus: any I2CBus, configuration: MAX30102Configuration, clock: any SensorClock) {
    self.bus = bus
    self.configuration = configuration
    self.clock = clock
    redCurrent = configuration.redCurrent
    irCurrent = configuration.irCurrent
    greenCurrent = configuration.greenCurrent
  }

  // MARK: - Public: identity and set-up

  /// PART_ID (0xFF): 0x15 for every MAX3010x.
  public func partID() throws(SensorError) -> UInt8 { try read(MAX30102Register.partID) }

  public func revisionID() throws(SensorError) -> UInt8 { try read(MAX30102Register.revisionID) }

  /// Samples per FIFO burst on this bus: 16 (96 bytes with two LEDs) over plain I2C; on an SMBus-only adapter as
  /// many whole samples as an SMBus I2C-block read carries (32 bytes: 5 samples with two LEDs, 3 with three), the
  /// way drivers/iio/health/max30102.c reads the FIFO with i2c_smbus_read_i2c_block_data. 0: no block reads.
  public var samplesPerTransfer: Int {
    min(Self.maximumSamplesPerTransfer, bus.adapter.functionality.longestBlockRead / configuration.bytesPerSample)
  }

  /// Fails unless the adapter can read the FIFO: plain I2C, or SMBus I2C-block reads. Byte reads alone would pop
  /// a sample's bytes one transfer at a time, and a sample split across transfers can be torn by an error.
  public func checkAdapter() throws(SensorError) {
    guard samplesPerTransfer == 0 else { return }
    let adapter = bus.adapter
    throw .unsupported(
      message: "\(bus.path): adapter '\(adapter.name)' has neither I2C_FUNC_I2C nor I2C_FUNC_SMBUS_READ_I2C_BLOCK "
        + "(it offers \(adapter.functionality)), and reading the MAX3010x FIFO needs one of them: connect the "
        + "sensor to an adapter that has it (a Raspberry Pi's I2C bus 1: dtparam=i2c_arm=on)")
  }

  /// Fails unless the device at the address is a MAX3010x.
  public func checkIdentity() throws(SensorError) {
    let found = try partID()
    guard found == MAX30102Bits.expectedPartID else {
      throw .wrongPart(
        bus: bus.path, address: configuration.address, found: found, expected: MAX30102Bits.expectedPartID,
        part: configuration.part.rawValue)
    }
  }

  /// Resets every register to its power-on value and waits for the RESET bit to clear.
  nonisolated(nonsending) public func reset() async throws(SensorError) {
    try write(MAX30102Register.modeConfiguration, MAX30102Register.ModeConfiguration.reset)
    let deadline = clock.now() + Self.resetTimeout
    while try read(MAX30102Register.modeConfiguration) & MAX30102Register.ModeConfiguration.reset != 0 {
      guard clock.now() < deadline else { throw .resetTimedOut(bus: bus.path, address: configuration.address) }
      do { try await clock.sleep(nanoseconds: Self.resetPollInterval) } catch { return }
    }
    isRunning = false
  }

  /// Identity, reset, settings, empty FIFO, then sampling starts. Settings are validated first.
  nonisolated(nonsending) public func start() async throws(SensorError) {
    try configuration.validate()
    try checkAdapter()
    try checkIdentity()
    try await reset()
    _ = try read(MAX30102Register.interruptStatus1)  // clears PWR_RDY
    try write(MAX30102Register.fifoConfiguration, configuration.fifoConfigurationByte)
    // A_FULL is what tells a full FIFO from an empty one (both have WR == RD); enable it so the flag is kept.
    try write(MAX30102Register.interruptEnable1, MAX30102Register.InterruptEnable1.almostFull)
    try write(MAX30102Register.spo2Configuration, configuration.spo2ConfigurationByte)
    try setLEDCurrents(red: redCurrent, ir: irCurrent, green: greenCurrent)
    if configuration.leds == 3 {
      // SLOT1 = LED1 (red), SLOT2 = LED2 (IR), SLOT3 = LED3 (green), SLOT4 off: the SpO2 order plus green.
      typealias Slots = MAX30102Register.MultiLEDControl
      try write(MAX30102Register.multiLEDControl1, Slots.slots(Slots.led1, Slots.led2))
      try write(MAX30102Register.multiLEDControl2, Slots.slots(Slots.led3, Slots.none))
    }
    try clearFIFO()
    typealias Mode = MAX30102Register.ModeConfiguration
    let mode = configuration.leds == 3 ? Mode.multiLED : Mode.spO2
    try write(MAX30102Register.modeConfiguration, mode)
    let now = clock.now()
    nextSampleIndex = 0
    pendingGap = 0
    anchorIndex = 0
    anchorTime = now + samplePeriod
    isRunning = true
    logger.info("max3010x started", metadata: ["bus": "\(bus.path)", "settings": "\(configuration.summary)"])
  }

  /// Shutdown mode: sampling stops, the part draws under 1 µA, registers keep their values.
  public func shutdown() throws(SensorError) {
    let shutdown = MAX30102Register.ModeConfiguration.shutdown
    try updateBits(MAX30102Register.modeConfiguration, mask: shutdown, value: shutdown)
    isRunning = false
  }

  /// Sets the LED pulse amplitudes (codes, 0.2 mA per step), writing the register of the LED that really
  /// carries each colour on this board (a red/IR swap moves them).
  public func setLEDCurrents(red: UInt8, ir: UInt8, green: UInt8? = nil) throws(SensorError) {
    let swap = configuration.swapRedIR
    try write(swap ? MAX30102Register.led2PulseAmplitude : MAX30102Register.led1PulseAmplitude, red)
    try write(swap ? MAX30102Register.led1PulseAmplitude : MAX30102Register.led2PulseAmplitude, ir)
    redCurrent = red
    irCurrent = ir
    if let green, configuration.leds == 3 {
      try write(MAX30102Register.led3PulseAmplitude, green)
      greenCurrent = green
    }
  }

  /// Die temperature in °C (one conversion, about 29 ms).
  nonisolated(nonsending) public func readTemperature() async throws(SensorError) -> Double {
    _ = try read(MAX30102Register.interruptStatus2)
    try write(MAX30102Register.temperatureConfiguration, MAX30102Register.TemperatureConfiguration.enable)
    let deadline = clock.now() + 4 * MAX30102Bits.temperatureConversionNanoseconds
    do { try await clock.sleep(nanoseconds: MAX30102Bits.temperatureConversionNanoseconds) } catch {}
    let enable = MAX30102Register.TemperatureConfiguration.enable
    while try read(MAX30102Register.temperatureConfiguration) & enable != 0 {
      guard clock.now() < deadline else {
        throw .device(DeviceError(
          kind: .i2c, path: bus.path, operation: "die temperature conversion", errno: ETIMEDOUT,
          hint: "the sensor did not finish a temperature conversion; power-cycle it"))
      }
      do { try await clock.sleep(nanoseconds: Self.resetPollInterval) } catch { break }
    }
    let integer = Int8(bitPattern: try read(MAX30102Register.temperatureInteger))
    let fraction = MAX30102Register.TemperatureFraction.fraction.get(try read(MAX30102Register.temperatureFraction))
    return Double(integer) + Double(fraction) * MAX30102Bits.temperatureFractionStep
  }

  /// Measures the FIFO's real sample rate over `duration` nanoseconds of this driver's clock (drains first,
  /// counts samples and gaps between two drains). Consumes the samples: for `doctor`, not mid-stream.
  nonisolated(nonsending) public func measureSampleRate(duration: Int64) async throws(SensorError) -> Double {
    _ = try readFIFO()
    let startIndex = nextSampleIndex + pendingGap
    let startTime = anchorTime
    let poll = max(samplePeriod, min(duration / 4, 100_000_000))
    let deadline = clock.now() + duration
    while clock.now() < deadline {
      do { try await clock.sleep(nanoseconds: poll) } catch { break }
      _ = try readFIFO()
    }
    let samples = nextSampleIndex + pendingGap - startIndex
    let elapsed = anchorTime - startTime
    guard elapsed > 0 else { return 0 }
    return Double(samples) * 1e9 / Double(elapsed)
  }

  // MARK: - Internal

  /// Nanoseconds between FIFO samples at the configured rate.
  var samplePeriod: Int64 { Int64((1e9 / configuration.effectiveSampleRateHz).rounded()) }

  /// Clears FIFO_WR_PTR, OVF_COUNTER and FIFO_RD_PTR (datasheet: do so before starting a new reading).
  func clearFIFO() throws(SensorError) {
    try write(MAX30102Register.fifoWritePointer, 0)
    try write(MAX30102Register.overflowCounter, 0)
    try write(MAX30102Register.fifoReadPointer, 0)
  }

  func read(_ register: UInt8) throws(SensorError) -> UInt8 {
    try withRetries { () throws(DeviceError) in
      try bus.readRegister(address: configuration.address, register: register)
    }
  }

  func readMany(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
    try withRetries { () throws(DeviceError) in
      try bus.readRegisters(address: configuration.address, register: register, count: count)
    }
  }

  func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
    try withRetries { () throws(DeviceError) in
      try bus.writeRegister(address: configuration.address, register: register, value: value)
    }
  }

  /// Read-modify-write of the bits in `mask` (the kernel's regmap_update_bits): the other bits keep their
  /// values, and nothing is written when the bits already hold `value`.
  func updateBits(_ register: UInt8, mask: UInt8, value: UInt8) throws(SensorError) {
    let old = try read(register)
    let new = old & ~mask | value & mask
    if new != old { try write(register, new) }
  }

  /// Retries transient bus errors (a NACK or EIO from a glitch); a missing node or a permission error is final.
  func withRetries<T>(_ body: () throws(DeviceError) -> T) throws(SensorError) -> T {
    var last: DeviceError?
    for _ in 0..<Self.attempts {
      do {
        return try body()
      } catch {
        last = error
        guard Self.isTransient(error) else { break }
        logger.debug("i2c retry", metadata: ["error": "\(error)"])
      }
    }
    throw .device(last!)
  }

  static func isTransient(_ error: DeviceError) -> Bool {
    [EIO, ENXIO, EAGAIN, ETIMEDOUT, EREMOTEIO].contains(error.errno)
  }
}
