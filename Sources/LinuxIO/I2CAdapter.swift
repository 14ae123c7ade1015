import Platform

/// What an I2C adapter can do: the bits `ioctl(I2C_FUNCS)` returns, named as include/uapi/linux/i2c.h names them.
///
/// A Raspberry Pi's i2c-bcm2835 speaks plain I2C (`I2C_FUNC_I2C`, so `I2C_RDWR` works) and the SMBus transfers the
/// kernel emulates on top of it. Some adapters speak SMBus only: PC chipset SMBus controllers, some USB bridges,
/// and the kernel's own i2c-stub. On those `I2C_RDWR` fails (EOPNOTSUPP) and the longest register read is an SMBus
/// I2C-block read of 32 bytes (`I2C_FUNC_SMBUS_READ_I2C_BLOCK`).
public struct I2CFunctionality: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt

  public init(rawValue: UInt) { self.rawValue = rawValue }

  // MARK: - The kernel's bits (I2C_FUNC_*)

  public static let i2c = I2CFunctionality(rawValue: 0x0000_0001)
  public static let tenBitAddress = I2CFunctionality(rawValue: 0x0000_0002)
  public static let protocolMangling = I2CFunctionality(rawValue: 0x0000_0004)
  public static let smbusPEC = I2CFunctionality(rawValue: 0x0000_0008)
  public static let noStart = I2CFunctionality(rawValue: 0x0000_0010)
  public static let slave = I2CFunctionality(rawValue: 0x0000_0020)
  public static let smbusBlockProcessCall = I2CFunctionality(rawValue: 0x0000_8000)
  public static let smbusQuick = I2CFunctionality(rawValue: 0x0001_0000)
  public static let smbusReadByte = I2CFunctionality(rawValue: 0x0002_0000)
  public static let smbusWriteByte = I2CFunctionality(rawValue: 0x0004_0000)
  public static let smbusReadByteData = I2CFunctionality(rawValue: 0x0008_0000)
  public static let smbusWriteByteData = I2CFunctionality(rawValue: 0x0010_0000)
  public static let smbusReadWordData = I2CFunctionality(rawValue: 0x0020_0000)
  public static let smbusWriteWordData = I2CFunctionality(rawValue: 0x0040_0000)
  public static let smbusProcessCall = I2CFunctionality(rawValue: 0x0080_0000)
  public static let smbusReadBlockData = I2CFunctionality(rawValue: 0x0100_0000)
  public static let smbusWriteBlockData = I2CFunctionality(rawValue: 0x0200_0000)
  public static let smbusReadI2CBlock = I2CFunctionality(rawValue: 0x0400_0000)
  public static let smbusWriteI2CBlock = I2CFunctionality(rawValue: 0x0800_0000)
  public static let smbusHostNotify = I2CFunctionality(rawValue: 0x1000_0000)

  /// I2C_FUNC_SMBUS_BYTE_DATA, _WORD_DATA, _I2C_BLOCK: the read and write halves together.
  public static let smbusByteData: I2CFunctionality = [.smbusReadByteData, .smbusWriteByteData]
  public static let smbusWordData: I2CFunctionality = [.smbusReadWordData, .smbusWriteWordData]
  public static let smbusI2CBlock: I2CFunctionality = [.smbusReadI2CBlock, .smbusWriteI2CBlock]

  /// I2C_FUNC_SMBUS_EMUL: the SMBus transfers the kernel emulates on an adapter that speaks plain I2C.
  public static let smbusEmulated: I2CFunctionality = [
    .smbusQuick, .smbusReadByte, .smbusWriteByte, .smbusByteData, .smbusWordData, .smbusProcessCall,
    .smbusWriteBlockData, .smbusI2CBlock, .smbusPEC,
  ]

  // MARK: - Register access

  /// I2C_SMBUS_BLOCK_MAX: the most bytes one SMBus block transfer carries.
  public static let smbusBlockMaximum = 32

  /// How a register read or write of more than one byte goes on this adapter.
  public enum BlockTransfer: Sendable, Hashable {
    /// One `I2C_RDWR` (write the register, repeated start, read), up to 8192 bytes.
    case combined
    /// One SMBus I2C-block transfer (the same bytes on the wire), up to 32 bytes.
    case smbusI2CBlock
  }

  /// How multi-byte register reads go: plain I2C when the adapter has it, else SMBus I2C-block reads; nil when
  /// it has neither.
  public var blockRead: BlockTransfer? {
    if contains(.i2c) { return .combined }
    if contains(.smbusReadI2CBlock) { return .smbusI2CBlock }
    return nil
  }

  /// How multi-byte register writes go (as `blockRead`).
  public var blockWrite: BlockTransfer? {
    if contains(.i2c) { return .combined }
    if contains(.smbusWriteI2CBlock) { return .smbusI2CBlock }
    return nil
  }

  /// The longest register read one transfer carries here: 8192 bytes over I2C_RDWR (drivers/i2c/i2c-dev.c),
  /// 32 over SMBus, 0 when the adapter has neither.
  public var longestBlockRead: Int {
    switch blockRead {
    case .combined: I2CDevice.maximumTransferLength
    case .smbusI2CBlock: Self.smbusBlockMaximum
    case nil: 0
    }
  }

  // MARK: - Names

  private static let names: [(I2CFunctionality, String)] = [
    (.i2c, "I2C_FUNC_I2C"), (.tenBitAddress, "I2C_FUNC_10BIT_ADDR"),
    (.protocolMangling, "I2C_FUNC_PROTOCOL_MANGLING"), (.smbusPEC, "I2C_FUNC_SMBUS_PEC"),
    (.noStart, "I2C_FUNC_NOSTART"), (.slave, "I2C_FUNC_SLAVE"),
    (.smbusBlockProcessCall, "I2C_FUNC_SMBUS_BLOCK_PROC_CALL"), (.smbusQuick, "I2C_FUNC_SMBUS_QUICK"),
    (.smbusReadByte, "I2C_FUNC_SMBUS_READ_BYTE"), (.smbusWriteByte, "I2C_FUNC_SMBUS_WRITE_BYTE"),
    (.smbusReadByteData, "I2C_FUNC_SMBUS_READ_BYTE_DATA"), (.smbusWriteByteData, "I2C_FUNC_SMBUS_WRITE_BYTE_DATA"),
    (.smbusReadWordData, "I2C_FUNC_SMBUS_READ_WORD_DATA"), (.smbusWriteWordData, "I2C_FUNC_SMBUS_WRITE_WORD_DATA"),
    (.smbusProcessCall, "I2C_FUNC_SMBUS_PROC_CALL"), (.smbusReadBlockData, "I2C_FUNC_SMBUS_READ_BLOCK_DATA"),
    (.smbusWriteBlockData, "I2C_FUNC_SMBUS_WRITE_BLOCK_DATA"), (.smbusReadI2CBlock, "I2C_FUNC_SMBUS_READ_I2C_BLOCK"),
    (.smbusWriteI2CBlock, "I2C_FUNC_SMBUS_WRITE_I2C_BLOCK"), (.smbusHostNotify, "I2C_FUNC_SMBUS_HOST_NOTIFY"),
  ]

  /// The kernel's names of the bits set, e.g. `I2C_FUNC_I2C | I2C_FUNC_SMBUS_QUICK`; `none` when empty.
  public var description: String {
    let set = Self.names.filter { contains($0.0) }.map(\.1)
    let known = Self.names.reduce(I2CFunctionality()) { $0.union($1.0) }
    let unknown = subtracting(known).rawValue
    let all = set + (unknown == 0 ? [] : ["0x" + String(unknown, radix: 16)])
    return all.isEmpty ? "none" : all.joined(separator: " | ")
  }
}

/// An I2C adapter as a driver sees it: its name (`/sys/class/i2c-dev/i2c-N/name`) and what it can do.
public struct I2CAdapter: Sendable, Hashable {
  public var name: String
  public var functionality: I2CFunctionality

  public init(name: String, functionality: I2CFunctionality) {
    self.name = name
    self.functionality = functionality
  }

  /// A Raspberry Pi's I2C bus 1 (drivers/i2c/busses/i2c-bcm2835.c): plain I2C plus the kernel's SMBus emulation;
  /// named after its device-tree node (the Pi 4's: i2c@7e804000).
  public static let raspberryPi = I2CAdapter(
    name: "bcm2835 (i2c@7e804000)", functionality: [.i2c, .smbusEmulated])

  /// The kernel's i2c-stub (drivers/i2c/i2c-stub.c) with its default `functionality`: SMBus quick, byte, byte
  /// data, word data and I2C block transfers, no plain I2C.
  public static let smbusStub = I2CAdapter(
    name: "SMBus stub driver",
    functionality: [.smbusQuick, .smbusReadByte, .smbusWriteByte, .smbusByteData, .smbusWordData, .smbusI2CBlock])

  /// Whether a register read of `count` bytes fits one transfer here; the error names the adapter and says why.
  public func checkBlockRead(count: Int, path: String, register: UInt8) throws(DeviceError) {
    try checkBlock(
      functionality.blockRead, count: count, path: path,
      operation: "read of \(count) bytes from register \(I2CDevice.hex(register))", smbusFunction: "READ",
      verb: "read")
  }

  /// Whether a register write of `count` bytes (after the register number) fits one transfer here.
  public func checkBlockWrite(count: Int, path: String, register: UInt8) throws(DeviceError) {
    try checkBlock(
      functionality.blockWrite, count: count, path: path,
      operation: "write of \(count) bytes to register \(I2CDevice.hex(register))", smbusFunction: "WRITE",
      verb: "write")
  }

  private func checkBlock(
    _ method: I2CFunctionality.BlockTransfer?, count: Int, path: String, operation: String, smbusFunction: String,
    verb: String
  ) throws(DeviceError) {
    guard let method else {
      throw DeviceError(
        kind: .i2c, path: path, operation: operation,
        errno: EOPNOTSUPP,
        hint: "adapter '\(name)' has neither I2C_FUNC_I2C nor I2C_FUNC_SMBUS_\(smbusFunction)_I2C_BLOCK "
          + "(it offers \(functionality)); connect the device to an adapter that does")
    }
    if method == .smbusI2CBlock && count > I2CFunctionality.smbusBlockMaximum {
      throw DeviceError(
        kind: .i2c, path: path, operation: operation,
        errno: EINVAL, hint: "adapter '\(name)' speaks SMBus only (no I2C_FUNC_I2C): one \(verb) carries at most "
          + "\(I2CFunctionality.smbusBlockMaximum) bytes")
    }
  }
}
