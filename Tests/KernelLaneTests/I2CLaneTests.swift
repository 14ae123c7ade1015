#if STRESSMON_KERNEL_LANE
import Foundation
import LinuxIO
import Platform
import Sensors
import Testing

extension KernelLaneTests {
  /// i2c-dev on i2c-stub (drivers/i2c/i2c-stub.c) at 0x57: a register file of 256 bytes behind the kernel's real
  /// I2C core, speaking SMBus only. The MAX30102 driver's identity check, set-up and FIFO reads go through it.
  @Suite("I2C through i2c-dev on i2c-stub")
  struct I2C {
    /// The MAX30102's identity registers (datasheet, "Register Maps and Descriptions"): PART_ID 0xFF = 0x15,
    /// REV_ID 0xFE (the lane uses 0x03).
    static func loadIdentity() throws -> I2CDevice {
      let device = try I2CDevice.open(path: KernelLane.i2cStubPath)
      try device.setTarget(address: KernelLane.sensorAddress)
      for register in UInt8(0x00)...UInt8(0xFD) { try device.writeByteData(register: register, value: 0) }
      try device.writeByteData(register: 0xFF, value: 0x15)
      try device.writeByteData(register: 0xFE, value: 0x03)
      return device
    }

    @Test("The driver reads PART_ID 0x15 and REV_ID through i2c-dev's SMBus byte reads")
    func identity() throws {
      let device = try Self.loadIdentity()
      defer { try? device.close() }
      let bus = try LinuxI2CBus(path: KernelLane.i2cStubPath)
      let driver = MAX30102Driver(bus: bus, configuration: MAX30102Configuration(), clock: SystemClock())
      #expect(try driver.partID() == 0x15)
      #expect(try driver.revisionID() == 0x03)
      try driver.checkIdentity()
    }

    @Test("i2c-stub's functionality bits: SMBus quick, byte, byte data, word data, I2C block; no plain I2C")
    func functionality() throws {
      let device = try I2CDevice.open(path: KernelLane.i2cStubPath)
      defer { try? device.close() }
      // STUB_FUNC_DEFAULT of drivers/i2c/i2c-stub.c, as include/uapi/linux/i2c.h spells the bits: what the
      // emulated bus models as I2CAdapter.smbusStub
      #expect(try device.functionality().rawValue == 0x0C7F_0000)
      #expect(try device.adapter() == I2CAdapter.smbusStub)
    }

    @Test("An adapter without SMBus block reads (i2c-stub's functionality changed): the driver refuses, naming it")
    func refusedWithoutBlockReads() async throws {
      let device = try Self.loadIdentity()
      defer { try? device.close() }
      // Given i2c-stub told to report SMBus quick, byte, byte data and word data only (its module parameter)
      let parameter = "/sys/module/i2c_stub/parameters/functionality"
      let saved = try KernelLane.read(parameter)
      try KernelLane.write(parameter, "\(0x007F_0000)")
      defer { try? KernelLane.write(parameter, saved) }
      let bus = try LinuxI2CBus(path: KernelLane.i2cStubPath)
      #expect(bus.adapter.functionality.rawValue == 0x007F_0000)
      // When the driver starts, it refuses in one line naming the adapter and the missing bits
      let driver = MAX30102Driver(bus: bus, configuration: MAX30102Configuration(), clock: SystemClock())
      await #expect {
        try await driver.start()
      } throws: { error in
        let text = "\(error)"
        return text.contains("/dev/i2c-0: adapter 'SMBus stub driver' has neither I2C_FUNC_I2C nor "
          + "I2C_FUNC_SMBUS_READ_I2C_BLOCK") && !text.contains("\n")
      }
      // And it did not touch the sensor: MODE still holds what loadIdentity left
      #expect(try device.readByteData(register: 0x09) == 0)
    }

    @Test("I2C_RDWR on an SMBus-only adapter fails with EOPNOTSUPP (the I2C core has no master_xfer to call)")
    func combinedTransferRefused() throws {
      let device = try Self.loadIdentity()
      defer { try? device.close() }
      #expect {
        _ = try device.writeThenRead(address: KernelLane.sensorAddress, bytes: [0xFF], count: 1)
      } throws: { error in
        guard let error = error as? DeviceError else { return false }
        return error.errno == EOPNOTSUPP && error.hint.contains("does not offer this kind of transfer")
      }
    }

    @Test("An address nothing answers at: the error says NACK and names the address")
    func absentAddress() throws {
      let device = try I2CDevice.open(path: KernelLane.i2cStubPath)
      defer { try? device.close() }
      try device.setTarget(address: 0x58)
      #expect {
        _ = try device.readByteData(register: 0xFF, address: 0x58)
      } throws: { error in
        guard let error = error as? DeviceError else { return false }
        return error.errno == ENODEV && error.description.contains("0x58") && error.hint.contains("NACK")
      }
    }

    @Test("The driver's set-up writes the datasheet's bytes for the default settings, read back through the kernel")
    func setUpRegisters() async throws {
      let device = try Self.loadIdentity()
      defer { try? device.close() }
      let silicon = try StubSilicon()
      silicon.start()
      defer { silicon.stop() }
      let bus = try LinuxI2CBus(path: KernelLane.i2cStubPath)
      let driver = MAX30102Driver(bus: bus, configuration: MAX30102Configuration(), clock: SystemClock())
      try await driver.start()
      #expect(silicon.resets >= 1, "the driver's reset reached the register file")
      // 400 samples/s averaged by 4, 411 µs, 4096 nA, 7 mA (35 × 0.2 mA), SpO2 mode, A_FULL enabled
      #expect(try device.readByteData(register: 0x08) == 0x40)  // FIFO_CONFIG: SMP_AVE = 4, rollover off
      #expect(try device.readByteData(register: 0x0A) == 0x2F)  // SPO2_CONFIG: range 01, SR 011, PW 11
      #expect(try device.readByteData(register: 0x0C) == 0x23)  // LED1_PA (red)
      #expect(try device.readByteData(register: 0x0D) == 0x23)  // LED2_PA (IR)
      #expect(try device.readByteData(register: 0x02) == 0x80)  // INT_ENABLE1: A_FULL_EN
      #expect(try device.readByteData(register: 0x09) == 0x03)  // MODE: SpO2
      for pointer in UInt8(0x04)...UInt8(0x06) { #expect(try device.readByteData(register: pointer) == 0) }
      // And the die temperature conversion completes through the same bus
      #expect(try await driver.readTemperature() == 25.25)
    }

    @Test("FIFO samples come through the kernel: 12 unread samples are read in bursts the adapter can carry")
    func fifoOverSMBus() async throws {
      let device = try Self.loadIdentity()
      defer { try? device.close() }
      let silicon = try StubSilicon()
      silicon.start()
      let bus = try LinuxI2CBus(path: KernelLane.i2cStubPath)
      let driver = MAX30102Driver(bus: bus, configuration: MAX30102Configuration(), clock: SystemClock())
      try await driver.start()
      silicon.stop()
      // Given 12 unread samples (WR_PTR 12, RD_PTR 0) and known bytes from FIFO_DATA (0x07) on: i2c-stub is a
      // register file, so a block read from 0x07 returns registers 0x07, 0x08, ... and never pops
      try device.writeByteData(register: 0x04, value: 12)
      let pattern: [UInt8] = (0..<30).map { UInt8(truncatingIfNeeded: 0x11 &* ($0 + 1)) }
      for (index, byte) in pattern.enumerated() { try device.writeByteData(register: 0x07 + UInt8(index), value: byte) }
      // When the driver drains the FIFO
      let blocks = try driver.readFIFO()
      // Then it read 12 samples; each burst started again at the first bytes (no pop), so the burst sizes show
      let ir = blocks.flatMap(\.ir)
      #expect(ir.count == 12)
      var words: [Int32] = []
      for index in stride(from: 0, to: 30, by: 3) {
        let raw = UInt32(pattern[index]) << 16 | UInt32(pattern[index + 1]) << 8 | UInt32(pattern[index + 2])
        words.append(Int32(raw & 0x3FFFF))
      }
      // 5 samples (30 bytes, under SMBus's 32) per burst: 5, 5, 2; IR is the second slot of each sample
      let burst: [Int32] = stride(from: 1, to: words.count, by: 2).map { words[$0] }
      let expected: [Int32] = burst + burst + Array(burst.prefix(2))
      #expect(ir == expected)
    }
  }
}

/// What the MAX30102's own logic does that a register file cannot: a reset (MODE bit 6) returns the registers to
/// their power-on values and clears itself; a temperature conversion (TEMP_CONFIG bit 0) fills TINT/TFRAC and
/// clears itself. A thread of the test does it through its own i2c-dev descriptor, as the part would within a
/// millisecond.
final class StubSilicon: @unchecked Sendable {
  private let device: I2CDevice
  private var thread: Thread?
  private let lock = NSLock()
  private var running = false
  private var resetCount = 0

  init() throws {
    device = try I2CDevice.open(path: KernelLane.i2cStubPath)
    try device.setTarget(address: KernelLane.sensorAddress)
  }

  deinit { try? device.close() }

  var resets: Int { lock.withLock { resetCount } }

  func start() {
    lock.withLock { running = true }
    let thread = Thread { [self] in
      while lock.withLock({ running }) {
        step()
        usleep(200)
      }
    }
    self.thread = thread
    thread.start()
  }

  func stop() {
    lock.withLock { running = false }
    while thread?.isFinished == false { usleep(500) }
  }

  private func step() {
    if let mode = try? device.readByteData(register: 0x09), mode & 0x40 != 0 {
      for register in UInt8(0x00)...UInt8(0x21) { try? device.writeByteData(register: register, value: 0) }
      try? device.writeByteData(register: 0x00, value: 0x01)  // PWR_RDY
      lock.withLock { resetCount += 1 }
    }
    if let temperature = try? device.readByteData(register: 0x21), temperature & 0x01 != 0 {
      try? device.writeByteData(register: 0x1F, value: 25)  // TINT
      try? device.writeByteData(register: 0x20, value: 4)  // TFRAC: 4 × 0.0625 °C
      try? device.writeByteData(register: 0x01, value: 0x02)  // DIE_TEMP_RDY
      try? device.writeByteData(register: 0x21, value: 0)
    }
  }
}
#endif
