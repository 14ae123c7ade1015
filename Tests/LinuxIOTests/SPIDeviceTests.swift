import LinuxIO
import Platform
import Testing

@Suite("spidev on a machine without SPI")
struct SPIDeviceTests {
  @Test("Opening /dev/spidev0.0 where SPI is not enabled names the node and how to enable SPI")
  func missingNode() {
    // Given the panel's usual node, or, on a board where it exists, one that does not
    let path = access("/dev/spidev0.0", F_OK) != 0 ? "/dev/spidev0.0" : "/dev/spidev9.9"
    // When the real spidev path opens it
    #expect {
      _ = try SPIDevice(path: path)
    } throws: { error in
      // Then: one message with the path, the failed step and the fix
      guard let error = error as? DeviceError else { return false }
      return error.kind == .spi && error.isMissing && error.description.hasPrefix(path + ": open failed")
        && error.description.contains("dtparam=spi=on")
    }
  }

  @Test("A node that is not an SPI device fails at configuration, naming the node")
  func notSPI() {
    // Given a character device that accepts open but not the spidev ioctls
    #expect {
      _ = try SPIDevice(path: "/dev/null")
    } throws: { error in
      guard let error = error as? DeviceError else { return false }
      return error.path == "/dev/null" && error.operation.hasPrefix("configure") && error.errno == ENOTTY
    }
  }

  @Test("Mode 0 at 4 MHz, 8-bit words for e-paper; frames go out in chunks spidev accepts")
  func configuration() {
    #expect(SPIConfiguration.ePaper == SPIConfiguration(mode: 0, bitsPerWord: 8, speedHz: 4_000_000))
    #expect(SPIDevice.maximumTransferBytes == 4096)
  }
}
