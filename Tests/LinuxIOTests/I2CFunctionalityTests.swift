import LinuxIO
import Platform
import Testing

/// The adapter functionality bits as include/uapi/linux/i2c.h defines them, and what they allow.
@Suite("I2C adapter functionality (I2C_FUNCS)")
struct I2CFunctionalityTests {
  @Test("The presets are the kernel's: i2c-stub's default 0x0C7F0000, I2C_FUNC_SMBUS_EMUL 0x0EFF0008")
  func presets() {
    #expect(I2CAdapter.smbusStub.functionality.rawValue == 0x0C7F_0000)
    #expect(I2CFunctionality.smbusEmulated.rawValue == 0x0EFF_0008)
    #expect(I2CAdapter.raspberryPi.functionality.rawValue == 0x0EFF_0009)
  }

  @Test("Block transfers: I2C_RDWR with plain I2C, 32-byte SMBus blocks without, nothing with neither")
  func blockTransfers() {
    #expect(I2CAdapter.raspberryPi.functionality.blockRead == .combined)
    #expect(I2CAdapter.raspberryPi.functionality.longestBlockRead == 8192)
    #expect(I2CAdapter.smbusStub.functionality.blockRead == .smbusI2CBlock)
    #expect(I2CAdapter.smbusStub.functionality.longestBlockRead == 32)
    let writeOnly: I2CFunctionality = [.smbusByteData, .smbusWriteI2CBlock]
    #expect(writeOnly.blockRead == nil && writeOnly.blockWrite == .smbusI2CBlock && writeOnly.longestBlockRead == 0)
  }

  @Test("The description names the bits as the kernel does, and shows unknown ones in hex")
  func names() {
    #expect(I2CAdapter.smbusStub.functionality.description == "I2C_FUNC_SMBUS_QUICK | I2C_FUNC_SMBUS_READ_BYTE | "
      + "I2C_FUNC_SMBUS_WRITE_BYTE | I2C_FUNC_SMBUS_READ_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_BYTE_DATA | "
      + "I2C_FUNC_SMBUS_READ_WORD_DATA | I2C_FUNC_SMBUS_WRITE_WORD_DATA | I2C_FUNC_SMBUS_READ_I2C_BLOCK | "
      + "I2C_FUNC_SMBUS_WRITE_I2C_BLOCK")
    #expect(I2CFunctionality(rawValue: 0x4000_0001).description == "I2C_FUNC_I2C | 0x40000000")
    #expect(I2CFunctionality().description == "none")
  }

  @Test("A read too long for an SMBus-only adapter is refused before the kernel, naming the adapter")
  func checks() throws {
    try I2CAdapter.smbusStub.checkBlockRead(count: 32, path: "/dev/i2c-0", register: 0x07)
    #expect {
      try I2CAdapter.smbusStub.checkBlockRead(count: 96, path: "/dev/i2c-0", register: 0x07)
    } throws: { error in
      guard let error = error as? DeviceError else { return false }
      return error.errno == EINVAL && error.description.contains("/dev/i2c-0")
        && error.description.contains("read of 96 bytes from register 0x07")
        && error.hint.contains("'SMBus stub driver' speaks SMBus only")
    }
    let none = I2CAdapter(name: "byte-only", functionality: [.smbusByteData])
    #expect(throws: DeviceError.self) { try none.checkBlockWrite(count: 1, path: "/dev/i2c-3", register: 0) }
  }
}
