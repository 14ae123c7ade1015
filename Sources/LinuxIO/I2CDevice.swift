import CI2C
import Platform

/// An open i2c-dev node (`/dev/i2c-N`): a file descriptor and its path, nothing hidden.
///
/// Modelled on swift-system's `FileDescriptor`: a value around a `CInt` that does not own the descriptor (call
/// `close()` once, explicitly). Each method maps onto one kernel call: `setTarget` is `ioctl(I2C_SLAVE)`,
/// `readByteData`/`writeByteData` are libi2c's SMBus byte transfers, `writeThenRead`/`write` are one
/// `ioctl(I2C_RDWR)` (a combined transfer with a repeated start, not limited to SMBus's 32-byte blocks).
/// Failures are `DeviceError(kind: .i2c, ...)` carrying errno, the path and the fix.
public struct I2CDevice: Sendable, Equatable {
  // MARK: - Properties

  public let path: String
  public let rawValue: CInt

  /// The kernel caps one I2C_RDWR message at 8192 bytes (drivers/i2c/i2c-dev.c).
  public static let maximumTransferLength = 8192

  // MARK: - Initialization

  /// Wraps an already open descriptor (tests, or a descriptor passed in by a supervisor).
  public init(rawValue: CInt, path: String) {
    self.rawValue = rawValue
    self.path = path
  }

  /// The node of bus `bus`: `/dev/i2c-<bus>`.
  public static func path(bus: Int) -> String { "/dev/i2c-\(bus)" }

  /// Opens `/dev/i2c-<bus>` read-write.
  public static func open(bus: Int) throws(DeviceError) -> I2CDevice {
    try open(path: path(bus: bus))
  }

  /// Opens an i2c-dev node read-write. ENOENT → "enable I2C"; EACCES → "join group i2c".
  public static func open(path: String) throws(DeviceError) -> I2CDevice {
    do {
      return I2CDevice(rawValue: try FileDescriptor.open(path, .readWrite).rawValue, path: path)
    } catch {
      throw DeviceError(kind: .i2c, path: path, operation: "open", errno: error.rawValue)
    }
  }

  // MARK: - Public

  /// Closes the descriptor. The value must not be used afterwards.
  public func close() throws(DeviceError) {
    do { try FileDescriptor(rawValue: rawValue).close() } catch let failure { throw error("close", failure.rawValue) }
  }

  /// Selects the 7-bit address later SMBus transfers go to (`ioctl(I2C_SLAVE)`). EBUSY means a kernel driver
  /// has claimed that address.
  public func setTarget(address: UInt8) throws(DeviceError) {
    let result = retryingOnInterrupt { ioctl(rawValue, UInt(I2C_SLAVE), CInt(address)) }
    if result < 0 {
      let code = errno
      throw error("ioctl(I2C_SLAVE, \(Self.hex(address)))", code, address: address)
    }
  }

  /// SMBus "read byte data": one register of the device selected by `setTarget`.
  public func readByteData(register: UInt8, address: UInt8? = nil) throws(DeviceError) -> UInt8 {
    let result = i2c_smbus_read_byte_data(rawValue, register)
    // libi2c returns -errno on failure (and leaves errno set by the ioctl).
    guard result >= 0 else { throw error("SMBus read of register \(Self.hex(register))", -result, address: address) }
    return UInt8(truncatingIfNeeded: result)
  }

  /// SMBus "write byte data": one register of the device selected by `setTarget`.
  public func writeByteData(register: UInt8, value: UInt8, address: UInt8? = nil) throws(DeviceError) {
    let result = i2c_smbus_write_byte_data(rawValue, register, value)
    guard result >= 0 else {
      throw error("SMBus write of \(Self.hex(value)) to register \(Self.hex(register))", -result, address: address)
    }
  }

  /// One combined transfer (`ioctl(I2C_RDWR)`): write `bytes` (usually a register number) to `address`, then a
  /// repeated start and read `count` bytes. Used for burst FIFO reads beyond SMBus's 32-byte limit.
  public func writeThenRead(address: UInt8, bytes: [UInt8], count: Int) throws(DeviceError) -> [UInt8] {
    precondition(count > 0 && count <= Self.maximumTransferLength && bytes.count <= Self.maximumTransferLength)
    var output = bytes
    var input = [UInt8](repeating: 0, count: count)
    let result = output.withUnsafeMutableBufferPointer { out in
      input.withUnsafeMutableBufferPointer { into in
        var messages = [
          i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(out.count), buf: out.baseAddress),
          i2c_msg(addr: UInt16(address), flags: UInt16(I2C_M_RD), len: UInt16(into.count), buf: into.baseAddress),
        ]
        return messages.withUnsafeMutableBufferPointer { list in
          var request = i2c_rdwr_ioctl_data(msgs: list.baseAddress, nmsgs: UInt32(list.count))
          return withUnsafeMutablePointer(to: &request) { request in
            retryingOnInterrupt { ioctl(rawValue, UInt(I2C_RDWR), UnsafeMutableRawPointer(request)) }
          }
        }
      }
    }
    if result < 0 {
      let code = errno
      throw error("I2C_RDWR read of \(count) bytes after writing \(Self.hexList(bytes))", code, address: address)
    }
    return input
  }

  /// One plain write transfer (`ioctl(I2C_RDWR)` with a single message): e.g. a register number and its value.
  public func write(address: UInt8, bytes: [UInt8]) throws(DeviceError) {
    precondition(!bytes.isEmpty && bytes.count <= Self.maximumTransferLength)
    var output = bytes
    let result = output.withUnsafeMutableBufferPointer { out in
      var message = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(out.count), buf: out.baseAddress)
      return withUnsafeMutablePointer(to: &message) { pointer in
        var request = i2c_rdwr_ioctl_data(msgs: pointer, nmsgs: 1)
        return withUnsafeMutablePointer(to: &request) { request in
          retryingOnInterrupt { ioctl(rawValue, UInt(I2C_RDWR), UnsafeMutableRawPointer(request)) }
        }
      }
    }
    if result < 0 {
      let code = errno
      throw error("I2C_RDWR write of \(Self.hexList(bytes))", code, address: address)
    }
  }

  /// The adapter's functionality bits (`ioctl(I2C_FUNCS)`), e.g. whether it supports I2C_RDWR (I2C_FUNC_I2C).
  public func functionality() throws(DeviceError) -> UInt {
    var funcs: UInt = 0
    let result = withUnsafeMutablePointer(to: &funcs) { pointer in
      retryingOnInterrupt { ioctl(rawValue, UInt(I2C_FUNCS), UnsafeMutableRawPointer(pointer)) }
    }
    if result < 0 { throw error("ioctl(I2C_FUNCS)", errno) }
    return funcs
  }

  /// Whether the adapter can do plain I2C transfers (I2C_RDWR), which burst FIFO reads need.
  public func supportsCombinedTransfers() throws(DeviceError) -> Bool {
    try functionality() & UInt(I2C_FUNC_I2C) != 0
  }

  // MARK: - Private

  private func error(_ operation: String, _ code: Int32, address: UInt8? = nil) -> DeviceError {
    DeviceError(kind: .i2c, path: path, operation: operation, errno: code, hint: Self.hint(errno: code, address: address))
  }

  /// The fix for an errno, naming the address where it matters (NACK: wiring or address; EBUSY: a kernel driver).
  public static func hint(errno code: Int32, address: UInt8?) -> String? {
    guard let address else { return nil }
    switch code {
    case EREMOTEIO, ENXIO, EIO:
      return "the device at \(hex(address)) did not answer (NACK): check the wiring (SDA, SCL, 3.3 V, GND) and that "
        + "the board file's address is \(hex(address)) ('i2cdetect -y <bus>' lists the addresses that answer)"
    case EBUSY:
      return "a kernel driver has claimed address \(hex(address)) (for 0x57 the max30102 IIO driver): "
        + "'stressmon doctor' shows how to unbind it"
    default:
      return nil
    }
  }

  public static func hex(_ value: UInt8) -> String {
    let digits = String(value, radix: 16, uppercase: false)
    return "0x" + (digits.count < 2 ? "0" + digits : digits)
  }

  private static func hexList(_ bytes: [UInt8]) -> String { bytes.map(hex).joined(separator: " ") }
}
