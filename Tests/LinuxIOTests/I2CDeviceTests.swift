import FoundationEssentials
import LinuxIO
import Platform
import TestSupport
import Testing

/// The real i2c-dev code paths on a machine without I2C: what a user sees when the bus is missing, when they
/// lack permission, and when the node is not an i2c-dev node.
@Suite("I2C device nodes on this machine")
struct I2CDeviceTests {
  @Test("Opening /dev/i2c-1 where I2C is not enabled fails with ENOENT and says how to enable it",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1")))
  func missingBus() {
    // When: the real open(2) of the node the Raspberry Pi boards use.
    let error = #expect(throws: DeviceError.self) { try I2CDevice.open(bus: 1) }
    // Then: errno, path and the fix are all in the message.
    #expect(error?.errno == ENOENT)
    #expect(error?.path == "/dev/i2c-1")
    #expect(error?.isMissing == true)
    #expect(error?.description.contains("/dev/i2c-1") == true)
    #expect(error?.description.contains("dtparam=i2c_arm=on") == true)
  }

  @Test("A node without permission fails with EACCES and tells the user to join group i2c")
  func permissionDenied() throws {
    // Given: a node only its owner may open, opened by someone else.
    let directory = try TemporaryDirectory("i2c-perm")
    defer { directory.remove() }
    let path = try directory.write("i2c-7", "")
    #expect(chmod(path, 0o000) == 0)
    // When: opened without the rights (as root, the file-system uid of this thread is dropped to nobody's,
    // which also drops CAP_DAC_OVERRIDE for this thread only).
    let error = Self.asNobody { () -> DeviceError? in
      do throws(DeviceError) {
        let device = try I2CDevice.open(path: path)
        try? device.close()
        return nil
      } catch {
        return error
      }
    }
    // Then
    #expect(error?.errno == EACCES)
    #expect(error?.description.contains(path) == true)
    #expect(error?.hint.contains("usermod -aG i2c") == true)
  }

  @Test("I2C_SLAVE on something that is not an i2c-dev node fails with ENOTTY, naming the node")
  func notAnI2CNode() throws {
    // Given: a node that opens (a regular file) but is no I2C adapter.
    let directory = try TemporaryDirectory("i2c-file")
    defer { directory.remove() }
    let device = try I2CDevice.open(path: try directory.write("i2c-9", ""))
    defer { try? device.close() }
    // When / Then: the ioctl reaches the kernel and fails.
    let error = #expect(throws: DeviceError.self) { try device.setTarget(address: 0x57) }
    #expect(error?.errno == ENOTTY)
    #expect(error?.operation.contains("I2C_SLAVE") == true)
    #expect(error?.operation.contains("0x57") == true)
    let burst = #expect(throws: DeviceError.self) { _ = try device.writeThenRead(address: 0x57, bytes: [0x07], count: 6) }
    #expect(burst?.errno == ENOTTY)
    #expect(burst?.description.contains(directory.path) == true)
  }

  @Test("A NACK names the address and points at the wiring")
  func nackHint() {
    let hint = I2CDevice.hint(errno: EREMOTEIO, address: 0x57)
    #expect(hint?.contains("0x57") == true)
    #expect(hint?.contains("wiring") == true)
    #expect(I2CDevice.hint(errno: EBUSY, address: 0x57)?.contains("kernel driver") == true)
  }

  /// Runs `body` with this thread's file-system uid set to nobody's when running as root (setfsuid(2) is
  /// per-thread on Linux, and a non-zero fsuid clears the file capabilities of that thread). `body` must not
  /// suspend.
  static func asNobody<T>(_ body: () -> T) -> T {
    guard geteuid() == 0 else { return body() }
    typealias SetFSUID = @convention(c) (UInt32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setfsuid") else { return body() }
    let setfsuid = unsafeBitCast(symbol, to: SetFSUID.self)
    _ = setfsuid(65534)
    defer { _ = setfsuid(0) }
    return body()
  }
}
