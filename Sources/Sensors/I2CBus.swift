import LinuxIO

/// Register access to devices on an I2C bus, as the drivers need it. The Linux implementation sits on
/// `/dev/i2c-N`; `EmulatedI2CBus` answers from register-level emulators for tests and the simulated board.
///
/// Buses are not thread-safe: each is owned by one source (an actor) or one test.
public protocol I2CBus: AnyObject {
  /// The bus in messages: the device node, or "emulated bus".
  var path: String { get }

  /// The adapter behind the bus: its name and what it can do (`ioctl(I2C_FUNCS)`). On an adapter without plain
  /// I2C (SMBus only), `readRegisters` and `writeRegisters` carry at most 32 bytes.
  var adapter: I2CAdapter { get }

  /// Reads one 8-bit register (SMBus read byte data).
  func readRegister(address: UInt8, register: UInt8) throws(DeviceError) -> UInt8

  /// Writes one 8-bit register (SMBus write byte data).
  func writeRegister(address: UInt8, register: UInt8, value: UInt8) throws(DeviceError)

  /// Writes the register number, then reads `count` bytes in one transfer (burst FIFO reads, 16-bit registers):
  /// a combined I2C transfer (up to 8192 bytes) where the adapter speaks plain I2C, else an SMBus I2C-block read
  /// (the same bytes on the wire, up to 32). Beyond what the adapter carries: EINVAL, naming the adapter.
  func readRegisters(address: UInt8, register: UInt8, count: Int) throws(DeviceError) -> [UInt8]

  /// Writes the register number followed by `bytes` in one transfer (16-bit registers), as `readRegisters` reads.
  func writeRegisters(address: UInt8, register: UInt8, bytes: [UInt8]) throws(DeviceError)
}

extension I2CBus {
  /// A bus that does not say is taken for a Raspberry Pi's (plain I2C).
  public var adapter: I2CAdapter { .raspberryPi }
}

/// An I2C bus on Linux's i2c-dev (`/dev/i2c-N`). Owns the descriptor and closes it on deinit.
public final class LinuxI2CBus: I2CBus {
  // MARK: - Properties

  public let path: String
  /// Read once when the node is opened (`ioctl(I2C_FUNCS)` and sysfs).
  public let adapter: I2CAdapter
  private let device: I2CDevice
  /// The address I2C_SLAVE last selected, to skip the ioctl when it has not changed.
  private var selected: UInt8?

  // MARK: - Initialization

  /// Opens the node and asks the adapter what it can do. ENOENT → enable I2C; EACCES → join group i2c (the error
  /// says so).
  public init(path: String) throws(DeviceError) {
    self.path = path
    device = try I2CDevice.open(path: path)
    do {
      adapter = try device.adapter()
    } catch {
      try? device.close()
      throw error
    }
  }

  deinit { try? device.close() }

  // MARK: - Public

  public func readRegister(address: UInt8, register: UInt8) throws(DeviceError) -> UInt8 {
    try select(address)
    return try device.readByteData(register: register, address: address)
  }

  public func writeRegister(address: UInt8, register: UInt8, value: UInt8) throws(DeviceError) {
    try select(address)
    try device.writeByteData(register: register, value: value, address: address)
  }

  public func readRegisters(address: UInt8, register: UInt8, count: Int) throws(DeviceError) -> [UInt8] {
    try adapter.checkBlockRead(count: count, path: path, register: register)
    if adapter.functionality.blockRead == .combined {
      return try device.writeThenRead(address: address, bytes: [register], count: count)
    }
    try select(address)
    return try device.readI2CBlock(register: register, count: count, address: address)
  }

  public func writeRegisters(address: UInt8, register: UInt8, bytes: [UInt8]) throws(DeviceError) {
    try adapter.checkBlockWrite(count: bytes.count, path: path, register: register)
    if adapter.functionality.blockWrite == .combined {
      return try device.write(address: address, bytes: [register] + bytes)
    }
    try select(address)
    try device.writeI2CBlock(register: register, bytes: bytes, address: address)
  }

  // MARK: - Private

  private func select(_ address: UInt8) throws(DeviceError) {
    guard selected != address else { return }
    try device.setTarget(address: address)
    selected = address
  }
}
