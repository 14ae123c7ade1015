import LinuxIO
import Platform
import Testing

@Suite("Device errors say what to do")
struct DeviceErrorTests {
  @Test("Permission denied on an I2C node tells the user to join group i2c")
  func permission() {
    let error = DeviceError(kind: .i2c, path: "/dev/i2c-1", operation: "open", errno: EACCES)
    #expect(error.description.contains("/dev/i2c-1"))
    #expect(error.description.contains("usermod -aG i2c"))
  }

  @Test("A missing SPI node tells the user how to enable SPI")
  func missing() {
    let error = DeviceError(kind: .spi, path: "/dev/spidev0.0", operation: "open", errno: ENOENT)
    #expect(error.isMissing)
    #expect(error.description.contains("dtparam=spi=on"))
  }

  @Test("A NACK on I2C points at the wiring")
  func nack() {
    #expect(DeviceError(kind: .i2c, path: "/dev/i2c-1", operation: "read", errno: EREMOTEIO).hint.contains("wiring"))
  }
}
