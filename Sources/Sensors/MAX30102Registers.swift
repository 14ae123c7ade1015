/// The MAX30102 register map (Maxim MAX30102 datasheet, rev. 1, "Register Maps and Descriptions", Table 1),
/// shared by MAX30101 and MAX30105 (which add LED3). One definition, used by the driver and the emulator. As in
/// Linux's drivers/iio/health/max30102.c, each register's address is followed by its bit fields.
public enum MAX30102Register {
  // MARK: - Status and interrupts

  /// Interrupt Status 1: A_FULL, PPG_RDY, ALC_OVF, PWR_RDY. Cleared by reading it.
  public static let interruptStatus1: UInt8 = 0x00
  public enum InterruptStatus1 {
    /// A_FULL[7]: the FIFO holds FIFO_A_FULL empty slots or fewer.
    public static let almostFull: UInt8 = 1 << 7
    /// PPG_RDY[6]: a new sample is in the FIFO.
    public static let dataReady: UInt8 = 1 << 6
    /// ALC_OVF[5]: ambient light cancellation reached its limit.
    public static let ambientLightOverflow: UInt8 = 1 << 5
    /// PWR_RDY[0]: powered up (or brown-out recovered).
    public static let powerReady: UInt8 = 1 << 0
  }

  /// Interrupt Status 2: DIE_TEMP_RDY. Cleared by reading it.
  public static let interruptStatus2: UInt8 = 0x01
  public enum InterruptStatus2 {
    /// DIE_TEMP_RDY[1]: a temperature conversion finished.
    public static let dieTemperatureReady: UInt8 = 1 << 1
  }

  /// Interrupt Enable 1: the same bit positions as Interrupt Status 1.
  public static let interruptEnable1: UInt8 = 0x02
  public enum InterruptEnable1 {
    /// A_FULL_EN[7].
    public static let almostFull: UInt8 = InterruptStatus1.almostFull
  }
  public static let interruptEnable2: UInt8 = 0x03

  // MARK: - FIFO

  /// FIFO_WR_PTR[4:0]: where the next sample will be written.
  public static let fifoWritePointer: UInt8 = 0x04
  /// OVF_COUNTER[4:0]: samples lost while the FIFO was full; saturates at 0x1F, reset when a sample is popped.
  public static let overflowCounter: UInt8 = 0x05
  /// FIFO_RD_PTR[4:0]: the next sample to read. Writable, so that a failed read can be retried.
  public static let fifoReadPointer: UInt8 = 0x06
  /// The 5-bit field of FIFO_WR_PTR, OVF_COUNTER and FIFO_RD_PTR.
  public enum FIFOPointer {
    public static let mask: UInt8 = 0x1F
  }
  /// FIFO_DATA: reading pops bytes; the register pointer does not auto-increment here.
  public static let fifoData: UInt8 = 0x07

  /// FIFO Configuration: SMP_AVE[7:5], FIFO_ROLLOVER_EN[4], FIFO_A_FULL[3:0].
  public static let fifoConfiguration: UInt8 = 0x08
  public enum FIFOConfiguration {
    /// SMP_AVE[7:5]: samples averaged per FIFO sample, code 0-5 = 1-32 (6 and 7 also mean 32).
    public static let averaging = MAX30102Field(mask: 0b1110_0000)
    /// FIFO_ROLLOVER_EN[4].
    public static let rolloverEnable: UInt8 = 1 << 4
    /// FIFO_A_FULL[3:0]: empty slots left when A_FULL is set.
    public static let almostFullEmptySlots = MAX30102Field(mask: 0b0000_1111)
  }

  // MARK: - Configuration

  /// Mode Configuration: SHDN[7], RESET[6], MODE[2:0].
  public static let modeConfiguration: UInt8 = 0x09
  public enum ModeConfiguration {
    /// SHDN[7]: power-save mode; registers keep their values.
    public static let shutdown: UInt8 = 1 << 7
    /// RESET[6]: resets every register; self-clears when done.
    public static let reset: UInt8 = 1 << 6
    /// MODE[2:0].
    public static let mode = MAX30102Field(mask: 0b0000_0111)
    /// Heart-rate mode: red LED (LED1) only.
    public static let heartRate: UInt8 = 0x02
    /// SpO2 mode: red (LED1) then IR (LED2) in each sample.
    public static let spO2: UInt8 = 0x03
    /// Multi-LED mode: the LEDs named by SLOT1-SLOT4.
    public static let multiLED: UInt8 = 0x07
  }

  /// SpO2 Configuration: SPO2_ADC_RGE[6:5], SPO2_SR[4:2], LED_PW[1:0].
  public static let spo2Configuration: UInt8 = 0x0A
  public enum SpO2Configuration {
    /// SPO2_ADC_RGE[6:5]: code 0-3 = 2048-16384 nA full scale.
    public static let adcRange = MAX30102Field(mask: 0b0110_0000)
    /// SPO2_SR[4:2]: code 0-7 = 50-3200 samples/s.
    public static let sampleRate = MAX30102Field(mask: 0b0001_1100)
    /// LED_PW[1:0]: code 0-3 = 69-411 µs, 15-18 bits.
    public static let pulseWidth = MAX30102Field(mask: 0b0000_0011)
  }

  /// LED1_PA (red), LED2_PA (IR), LED3_PA (green, MAX30101/MAX30105): 0.2 mA per step, 0x00-0xFF = 0-51 mA.
  public static let led1PulseAmplitude: UInt8 = 0x0C
  public static let led2PulseAmplitude: UInt8 = 0x0D
  public static let led3PulseAmplitude: UInt8 = 0x0E

  /// Multi-LED Mode Control: SLOT2[6:4] SLOT1[2:0] (0x11) and SLOT4[6:4] SLOT3[2:0] (0x12).
  public static let multiLEDControl1: UInt8 = 0x11
  public static let multiLEDControl2: UInt8 = 0x12
  public enum MultiLEDControl {
    /// The odd slot of the register (SLOT1, SLOT3).
    public static let lowSlot = MAX30102Field(mask: 0b0000_0111)
    /// The even slot of the register (SLOT2, SLOT4).
    public static let highSlot = MAX30102Field(mask: 0b0111_0000)
    /// Slot codes: none (ends the list), LED1 (red), LED2 (IR), LED3 (green).
    public static let none: UInt8 = 0
    public static let led1: UInt8 = 1
    public static let led2: UInt8 = 2
    public static let led3: UInt8 = 3

    /// The register value that puts `low` in the odd slot and `high` in the even one.
    public static func slots(_ low: UInt8, _ high: UInt8) -> UInt8 { lowSlot.set(low) | highSlot.set(high) }
  }

  // MARK: - Die temperature

  /// TINT: integer part, two's complement, °C.
  public static let temperatureInteger: UInt8 = 0x1F
  /// TFRAC[3:0]: fraction in 0.0625 °C steps.
  public static let temperatureFraction: UInt8 = 0x20
  public enum TemperatureFraction {
    public static let fraction = MAX30102Field(mask: 0b0000_1111)
  }
  /// Die Temperature Config: TEMP_EN[0].
  public static let temperatureConfiguration: UInt8 = 0x21
  public enum TemperatureConfiguration {
    /// TEMP_EN[0]: starts one conversion; self-clears when done.
    public static let enable: UInt8 = 1 << 0
  }

  // MARK: - Identity

  public static let revisionID: UInt8 = 0xFE
  public static let partID: UInt8 = 0xFF
}

/// A multi-bit field of a register, by its mask (the kernel's GENMASK with FIELD_PREP / FIELD_GET).
public struct MAX30102Field: Sendable {
  public let mask: UInt8

  public init(mask: UInt8) { self.mask = mask }

  /// The field's lowest bit.
  public var shift: UInt8 { UInt8(mask.trailingZeroBitCount) }

  /// `value` placed in the field (FIELD_PREP); bits beyond the field are dropped.
  public func set(_ value: UInt8) -> UInt8 { value << shift & mask }

  /// The field's value in `register` (FIELD_GET).
  public func get(_ register: UInt8) -> UInt8 { (register & mask) >> shift }
}

/// Constants of the part that are not register fields (same datasheet).
public enum MAX30102Bits {
  /// PART_ID of the MAX30101, MAX30102 and MAX30105 alike.
  public static let expectedPartID: UInt8 = 0x15
  /// The fixed 7-bit I2C address (datasheet: write 0xAE / read 0xAF).
  public static let address: UInt8 = 0x57

  /// FIFO depth in samples (datasheet: "32-sample FIFO").
  public static let fifoDepth = 32
  /// OVF_COUNTER saturates here.
  public static let overflowCounterMaximum = 31
  /// Every channel of a sample is 3 bytes; the value is 18 bits, MSB at bit 17 whatever the resolution.
  public static let bytesPerChannel = 3
  public static let sampleMask: UInt32 = 0x3_FFFF
  /// Largest 18-bit count.
  public static let fullScale: Int32 = 262_143
  /// LED pulse amplitude step: 0.2 mA per LSB.
  public static let milliampsPerStep = 0.2
  /// Temperature conversion time (datasheet: "Temperature ADC acquisition time 29 ms").
  public static let temperatureConversionNanoseconds: Int64 = 29_000_000
  /// TFRAC step in °C.
  public static let temperatureFractionStep = 0.0625
}
