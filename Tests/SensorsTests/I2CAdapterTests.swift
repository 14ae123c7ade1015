import LinuxIO
import Platform
import Sensors
import Testing

/// The MAX30102 on an SMBus-only adapter (some PC SMBus controllers and USB bridges, the kernel's i2c-stub): no
/// I2C_RDWR, and no transfer over 32 bytes. The driver then reads the FIFO in SMBus I2C-block reads of whole
/// samples, as Linux's own max30102 driver does; with no block reads at all it refuses, naming the adapter.
/// The emulated bus models the adapter as the kernel presents it (drivers/i2c/i2c-stub.c, i2c-dev.c).
@Suite("MAX30102 on an SMBus-only I2C adapter")
struct I2CAdapterTests {
  let ms = EmulatorFixture.ms

  @Test("On i2c-stub's adapter the driver reads the same samples as on a Pi's, in 30-byte SMBus block reads")
  func smbusFallbackLosesNothing() async throws {
    // Given the same recording behind a Raspberry Pi's adapter and behind an SMBus-only one
    let plain = try EmulatorFixture()
    let smbus = try EmulatorFixture(bus: .smbusStub())
    #expect(plain.driver.samplesPerTransfer == 16)
    #expect(smbus.driver.samplesPerTransfer == 5)
    // When both are started and polled alike for 20 s of virtual time, with waits that let up to 30 samples pile up
    try await plain.driver.start()
    try await smbus.driver.start()
    let waits = [37 * ms, 290 * ms, 120 * ms, 8 * ms, 250 * ms]
    let fromPlain = flatten(try plain.run(for: 20_000 * ms, waits: waits))
    let fromSMBus = flatten(try smbus.run(for: 20_000 * ms, waits: waits))
    // Then they carry the same samples: every one, in order, equal to what the emulator pushed
    #expect(fromSMBus.count >= 1_990)
    #expect(fromSMBus.map(\.index) == fromPlain.map(\.index))
    #expect(fromSMBus.map(\.ir) == fromPlain.map(\.ir))
    #expect(fromSMBus.map(\.red) == fromPlain.map(\.red))
    // And the SMBus run needed more transfers for them (5 samples a read instead of 16), none refused
    #expect(smbus.bus.transferCount > plain.bus.transferCount)
    #expect(smbus.bus.failedTransferCount == 0)
  }

  @Test("A bus error mid-burst on the SMBus adapter is recovered by rewinding FIFO_RD_PTR, as over plain I2C")
  func smbusBurstErrorRecovers() async throws {
    let fixture = try EmulatorFixture(bus: .smbusStub())
    try await fixture.driver.start()
    _ = try fixture.run(for: 500 * ms, waits: [100 * ms])
    fixture.bus.injectFault(.busError(afterBytes: 13), onRegister: MAX30102Register.fifoData)
    let blocks = try fixture.run(for: 2_000 * ms, waits: [230 * ms])
    #expect(fixture.bus.failedTransferCount == 1)
    #expect(blocks.allSatisfy { $0.gapBefore == 0 })
    let log = fixture.logByIndex
    let out = flatten(blocks)
    #expect(zip(out, out.dropFirst()).allSatisfy { $0.index + 1 == $1.index })
    for sample in out { #expect(log[sample.index]?.ir == sample.ir) }
  }

  @Test("Without plain I2C or SMBus block reads the driver refuses before touching the sensor, naming the adapter")
  func noBlockReadsRefused() async throws {
    // Given an adapter with SMBus byte transfers only (i2c-stub with functionality=0x7f0000)
    let byteOnly = I2CAdapter(
      name: "SMBus stub driver",
      functionality: [.smbusQuick, .smbusReadByte, .smbusWriteByte, .smbusByteData, .smbusWordData])
    let fixture = try EmulatorFixture(bus: EmulatedI2CBus(adapter: byteOnly, nackErrno: ENODEV))
    #expect(fixture.driver.samplesPerTransfer == 0)
    // When the driver starts, it refuses in one line: the adapter, the bits it lacks and the way out
    await #expect {
      try await fixture.driver.start()
    } throws: { error in
      let text = "\(error)"
      return (error as? SensorError)?.sysexitCode == 69 && !text.contains("\n")
        && text.contains("'SMBus stub driver'") && text.contains("I2C_FUNC_I2C")
        && text.contains("I2C_FUNC_SMBUS_READ_I2C_BLOCK") && text.contains("dtparam=i2c_arm=on")
    }
    // And nothing went over the bus
    #expect(fixture.bus.transferCount == 0)
  }

  @Test("The SMBus-only bus refuses what the kernel would: 33 bytes at once, and NACKs with i2c-stub's ENODEV")
  func adapterModel() throws {
    let bus = EmulatedI2CBus.smbusStub()
    let registers = RegisterFile()
    bus.attach(registers, at: 0x57)
    #expect(try bus.readRegisters(address: 0x57, register: 0x00, count: 32).count == 32)
    #expect {
      _ = try bus.readRegisters(address: 0x57, register: 0x00, count: 33)
    } throws: { error in
      guard let error = error as? DeviceError else { return false }
      return error.errno == EINVAL && error.hint.contains("'SMBus stub driver'") && error.hint.contains("32 bytes")
    }
    #expect {
      _ = try bus.readRegister(address: 0x58, register: 0xFF)
    } throws: { error in
      guard let error = error as? DeviceError else { return false }
      return error.errno == ENODEV && error.hint.contains("NACK") && error.hint.contains("0x58")
    }
  }

  @Test("doctor's adapter check: plain I2C, the SMBus fall-back with its burst size, or a failure with the fix")
  func doctorAdapterCheck() async throws {
    let clock = VirtualClock()
    let configuration = MAX30102Configuration()
    let plain = await HardwareDiagnostics.max3010x(
      bus: EmulatedI2CBus(), configuration: configuration, clock: clock, measureFor: 0)
    #expect(plain.first?.detail == "'bcm2835 (i2c@7e804000)' speaks plain I2C: FIFO bursts of 16 samples (96 bytes)")
    let smbus = await HardwareDiagnostics.max3010x(
      bus: EmulatedI2CBus.smbusStub(), configuration: configuration, clock: clock, measureFor: 0)
    #expect(smbus.first?.status == .pass)
    #expect(smbus.first?.detail == "'SMBus stub driver' speaks SMBus only (no I2C_FUNC_I2C): the FIFO is read in "
      + "SMBus I2C-block reads of 5 samples (30 bytes)")
    let none = await HardwareDiagnostics.max3010x(
      bus: EmulatedI2CBus(adapter: I2CAdapter(name: "byte-only", functionality: [.smbusByteData])),
      configuration: configuration, clock: clock, measureFor: 0)
    #expect(none.map(\.name) == ["i2c adapter"])
    #expect(none.first?.status == .fail)
    #expect(none.first?.fix?.contains("dtparam=i2c_arm=on") == true)
  }
}

/// 256 plain registers with an auto-incrementing pointer: enough to see which transfers a bus lets through.
private final class RegisterFile: EmulatedI2CDevice {
  var registers = [UInt8](repeating: 0xA5, count: 256)
  var pointer = 0

  func receive(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    pointer = Int(first)
    for byte in bytes.dropFirst() {
      registers[pointer] = byte
      pointer = (pointer + 1) & 0xFF
    }
  }

  func transmit(count: Int) -> [UInt8] {
    (0..<count).map { _ in
      defer { pointer = (pointer + 1) & 0xFF }
      return registers[pointer]
    }
  }
}
