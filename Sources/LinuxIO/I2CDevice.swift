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

  /// SMBus "read I2C block data": the register number, a repeated start, then `count` bytes (at most 32), from the
  /// device selected by `setTarget`. On the wire it is the same as `writeThenRead`; it is what an SMBus-only
  /// adapter offers instead (I2C_FUNC_SMBUS_READ_I2C_BLOCK).
  public func readI2CBlock(register: UInt8, count: Int, address: UInt8? = nil) throws(DeviceError) -> [UInt8] {
    // libi2c would silently shorten a longer read to 32 bytes.
    precondition(count > 0 && count <= I2CFunctionality.smbusBlockMaximum)
    var bytes = [UInt8](repeating: 0, count: I2CFunctionality.smbusBlockMaximum)
    let result = i2c_smbus_read_i2c_block_data(rawValue, register, UInt8(count), &bytes)
    guard result >= 0 else {
      throw error("SMBus I2C-block read of \(count) bytes from register \(Self.hex(register))", -result,
                  address: address)
    }
    guard Int(result) == count else {
      throw error("SMBus I2C-block read of \(count) bytes from register \(Self.hex(register)) (got \(result))", EIO,
                  address: address)
    }
    return Array(bytes.prefix(count))
  }

  /// SMBus "write I2C block data": the register number, then `bytes` (at most 32), to the device selected by
  /// `setTarget` (I2C_FUNC_SMBUS_WRITE_I2C_BLOCK).
  public func writeI2CBlock(register: UInt8, bytes: [UInt8], address: UInt8? = nil) throws(DeviceError) {
    precondition(!bytes.isEmpty && bytes.count <= I2CFunctionality.smbusBlockMaximum)
    let result = bytes.withUnsafeBufferPointer { buffer in
      i2c_smbus_write_i2c_block_data(rawValue, register, UInt8(buffer.count), buffer.baseAddress)
    }
    guard result >= 0 else {
      throw error("SMBus I2C-block write of \(Self.hexList(bytes)) to register \(Self.hex(register))", -result,
                  address: address)
    }
  }

  /// The adapter's functionality bits (`ioctl(I2C_FUNCS)`): whether it speaks plain I2C (I2C_RDWR), which SMBus
  /// transfers it offers.
  public func functionality() throws(DeviceError) -> I2CFunctionality {
    var funcs: UInt = 0
    let result = withUnsafeMutablePointer(to: &funcs) { pointer in
      retryingOnInterrupt { ioctl(rawValue, UInt(I2C_FUNCS), UnsafeMutableRawPointer(pointer)) }
    }
    if result < 0 { throw error("ioctl(I2C_FUNCS)", errno) }
    return I2CFunctionality(rawValue: funcs)
  }

  /// The adapter behind this node: its name (sysfs, `/sys/dev/char/89:N/name`; the path when sysfs does not say)
  /// and its functionality.
  public func adapter() throws(DeviceError) -> I2CAdapter {
    I2CAdapter(name: adapterName() ?? path, functionality: try functionality())
  }

  /// The adapter's name as the kernel gives it, e.g. `bcm2835 (i2c@7e804000)` or `SMBus stub driver`; nil when
  /// sysfs is not mounted or the node is not a character device.
  public func adapterName() -> String? {
    var status = stat()
    guard fstat(rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFCHR else { return nil }
    // gnu_dev_major/minor, which Swift cannot import as macros.
    let device = UInt64(status.st_rdev)
    let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
    let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
    guard let file = try? FileDescriptor.open("/sys/dev/char/\(major):\(minor)/name", .readOnly) else { return nil }
    defer { try? file.close() }
    guard let bytes = try? file.readAll(limit: 256) else { return nil }
    let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    return name.isEmpty ? nil : name
  }

  // MARK: - Private

  private func error(_ operation: String, _ code: Int32, address: UInt8? = nil) -> DeviceError {
    DeviceError(kind: .i2c, path: path, operation: operation, errno: code, hint: Self.hint(errno: code, address: address))
  }

  /// The fix for an errno, naming the address where it matters (NACK: wiring or address; EBUSY: a kernel driver).
  public static func hint(errno code: Int32, address: UInt8?) -> String? {
    if code == EOPNOTSUPP {
      return "the I2C adapter does not offer this kind of transfer ('i2cdetect -F <bus>' lists what it does)"
    }
    guard let address else { return nil }
    switch code {
    // A NACK: i2c-bcm2835 (Raspberry Pi) reports EREMOTEIO, PC SMBus controllers ENXIO, i2c-stub ENODEV.
    case EREMOTEIO, ENXIO, EIO, ENODEV:
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
