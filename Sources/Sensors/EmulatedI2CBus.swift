import LinuxIO
import Platform
import Synchronization

/// A device on the emulated bus, at the level of bytes on the wire: a write transfer's first byte selects the
/// register, the rest are written from there; a read transfer clocks bytes out from the register pointer.
public protocol EmulatedI2CDevice: AnyObject {
  /// A write transfer (register number first).
  func receive(_ bytes: [UInt8])
  /// A read transfer of `count` bytes from the current register pointer.
  func transmit(count: Int) -> [UInt8]
}

/// A fault the emulated bus injects into a transfer.
public enum I2CFault: Sendable, Equatable {
  /// The device does not acknowledge its address: nothing is transferred, the call fails with the bus's
  /// `nackErrno` (EREMOTEIO, what the Raspberry Pi's i2c-bcm2835 returns on a NACK, unless told otherwise).
  case nack
  /// The transfer breaks with EIO after `afterBytes` bytes of the read phase were clocked out of the device
  /// (those bytes are gone from a FIFO, as on real hardware).
  case busError(afterBytes: Int)
}

/// An I2C bus whose devices are emulators: `attach` a device at an address; any other address NACKs. Faults are
/// injected on demand, by register and count, to test how drivers recover.
///
/// The adapter is modelled as the kernel presents it: its functionality bits decide which transfers go through
/// (no plain I2C: multi-byte transfers are SMBus I2C blocks of at most 32 bytes, checked by the same
/// `I2CAdapter` code `LinuxI2CBus` uses; no SMBus byte data either: EOPNOTSUPP), and a NACK fails with the
/// errno its driver returns (i2c-bcm2835: EREMOTEIO; i2c-stub: ENODEV, drivers/i2c/i2c-stub.c).
public final class EmulatedI2CBus: I2CBus {
  // MARK: - Properties

  public let path: String
  public let adapter: I2CAdapter
  /// The errno a transfer to an absent device (or an injected NACK) fails with.
  public let nackErrno: Int32
  private var devices: [UInt8: any EmulatedI2CDevice] = [:]
  private var faults: [(fault: I2CFault, register: UInt8?, skip: Int)] = []
  /// Every transfer so far (a combined write-then-read counts once).
  public private(set) var transferCount = 0
  /// Transfers that failed because of an injected fault or an absent device.
  public private(set) var failedTransferCount = 0

  // MARK: - Initialization

  /// A bus on `adapter` (default: a Raspberry Pi's i2c-bcm2835, plain I2C, NACK = EREMOTEIO).
  public init(path: String = "emulated bus", adapter: I2CAdapter = .raspberryPi, nackErrno: Int32 = EREMOTEIO) {
    self.path = path
    self.adapter = adapter
    self.nackErrno = nackErrno
  }

  /// A bus on the kernel's i2c-stub adapter: SMBus only (its default functionality), NACK = ENODEV.
  public static func smbusStub(path: String = "emulated bus") -> EmulatedI2CBus {
    EmulatedI2CBus(path: path, adapter: .smbusStub, nackErrno: ENODEV)
  }

  // MARK: - Public

  public func attach(_ device: any EmulatedI2CDevice, at address: UInt8) { devices[address] = device }

  /// Removes a device: it NACKs from now on, as if unplugged.
  public func detach(address: UInt8) { devices[address] = nil }

  /// Makes a future transfer fail: the first one touching `register` (any register when nil) after `skip` such
  /// transfers have gone through.
  public func injectFault(_ fault: I2CFault, onRegister register: UInt8? = nil, skip: Int = 0) {
    faults.append((fault, register, skip))
  }

  public var pendingFaultCount: Int { faults.count }

  public func readRegister(address: UInt8, register: UInt8) throws(DeviceError) -> UInt8 {
    try checkByteData(.smbusReadByteData, register: register, operation: "SMBus read")
    return try read(address: address, register: register, count: 1)[0]
  }

  public func writeRegister(address: UInt8, register: UInt8, value: UInt8) throws(DeviceError) {
    try checkByteData(.smbusWriteByteData, register: register, operation: "SMBus write")
    try write(address: address, register: register, bytes: [value])
  }

  public func readRegisters(address: UInt8, register: UInt8, count: Int) throws(DeviceError) -> [UInt8] {
    try adapter.checkBlockRead(count: count, path: path, register: register)
    return try read(address: address, register: register, count: count)
  }

  public func writeRegisters(address: UInt8, register: UInt8, bytes: [UInt8]) throws(DeviceError) {
    try adapter.checkBlockWrite(count: bytes.count, path: path, register: register)
    try write(address: address, register: register, bytes: bytes)
  }

  // MARK: - Transfers

  /// Byte-data transfers need the SMBus bit, or plain I2C (the kernel emulates SMBus on top of it).
  private func checkByteData(_ needed: I2CFunctionality, register: UInt8, operation: String) throws(DeviceError) {
    guard !adapter.functionality.contains(.i2c) && !adapter.functionality.contains(needed) else { return }
    throw DeviceError(
      kind: .i2c, path: path, operation: "\(operation) of register \(hex(register))", errno: EOPNOTSUPP,
      hint: I2CDevice.hint(errno: EOPNOTSUPP, address: nil))
  }

  private func read(address: UInt8, register: UInt8, count: Int) throws(DeviceError) -> [UInt8] {
    let (device, fault) = try begin(address: address, register: register, operation: "read of \(count) bytes")
    let started = Self.threadCPUNanoseconds()
    defer { Self.account(since: started) }
    device.receive([register])
    if case .busError(let afterBytes)? = fault {
      _ = device.transmit(count: min(afterBytes, count))
      throw failure(EIO, address: address, operation: "read of \(count) bytes from register \(hex(register))")
    }
    return device.transmit(count: count)
  }

  private func write(address: UInt8, register: UInt8, bytes: [UInt8]) throws(DeviceError) {
    let (device, fault) = try begin(address: address, register: register, operation: "write to register \(hex(register))")
    let started = Self.threadCPUNanoseconds()
    defer { Self.account(since: started) }
    if case .busError(let afterBytes)? = fault {
      // A register write takes effect only when all its bytes arrived.
      if afterBytes > bytes.count { device.receive([register] + bytes) }
      throw failure(EIO, address: address, operation: "write to register \(hex(register))")
    }
    device.receive([register] + bytes)
  }

  // MARK: - The emulators' own cost

  /// CPU time spent inside emulated devices so far, all buses of this process (the emulators compute what they
  /// return when asked, on the caller's thread); nil when no emulated transfer has run. `scripts/bench-daemon`
  /// takes it out of the daemon's CPU figure: a real sensor does that work in silicon.
  public static var deviceCPUNanoseconds: Int64? {
    let total = deviceCPU.load(ordering: .relaxed)
    return total < 0 ? nil : total
  }

  private static let deviceCPU = Atomic<Int64>(-1)

  private static func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }

  private static func account(since started: Int64) {
    let spent = max(0, threadCPUNanoseconds() - started)
    _ = deviceCPU.compareExchange(expected: -1, desired: 0, ordering: .relaxed)
    deviceCPU.add(spent, ordering: .relaxed)
  }

  // MARK: - Private

  /// Counts the transfer, takes the fault due for it (if any), and NACKs absent devices and injected NACKs.
  private func begin(
    address: UInt8, register: UInt8, operation: String
  ) throws(DeviceError) -> (any EmulatedI2CDevice, I2CFault?) {
    transferCount += 1
    guard let device = devices[address] else { throw failure(nackErrno, address: address, operation: operation) }
    var fault: I2CFault?
    if let index = faults.firstIndex(where: { $0.register == nil || $0.register == register }) {
      if faults[index].skip > 0 {
        faults[index].skip -= 1
      } else {
        fault = faults.remove(at: index).fault
      }
    }
    if fault == .nack { throw failure(nackErrno, address: address, operation: operation) }
    return (device, fault)
  }

  private func failure(_ code: Int32, address: UInt8, operation: String) -> DeviceError {
    failedTransferCount += 1
    return DeviceError(
      kind: .i2c, path: path, operation: operation + " at \(hex(address))", errno: code,
      hint: I2CDevice.hint(errno: code, address: address))
  }
}
