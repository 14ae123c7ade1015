/// The MAX30102 register map (Maxim MAX30102 datasheet, rev. 1, "Register Maps and Descriptions", Table 1),
/// shared by MAX30101 and MAX30105 (which add LED3). One definition, used by the driver and the emulator.
public enum MAX30102Register {
  // MARK: - Status and interrupts
  /// Interrupt Status 1: A_FULL, PPG_RDY, ALC_OVF, PWR_RDY. Cleared by reading it.
  public static let interruptStatus1: UInt8 = 0x00
  /// Interrupt Status 2: DIE_TEMP_RDY. Cleared by reading it.
  public static let interruptStatus2: UInt8 = 0x01
  public static let interruptEnable1: UInt8 = 0x02
  public static let interruptEnable2: UInt8 = 0x03

  // MARK: - FIFO
  /// FIFO_WR_PTR[4:0]: where the next sample will be written.
  public static let fifoWritePointer: UInt8 = 0x04
  /// OVF_COUNTER[4:0]: samples lost while the FIFO was full; saturates at 0x1F, reset when a sample is popped.
  public static let overflowCounter: UInt8 = 0x05
  /// FIFO_RD_PTR[4:0]: the next sample to read. Writable, so that a failed read can be retried.
  public static let fifoReadPointer: UInt8 = 0x06
  /// FIFO_DATA: reading pops bytes; the register pointer does not auto-increment here.
  public static let fifoData: UInt8 = 0x07
  /// FIFO Configuration: SMP_AVE[7:5], FIFO_ROLLOVER_EN[4], FIFO_A_FULL[3:0].
  public static let fifoConfiguration: UInt8 = 0x08

  // MARK: - Configuration
  /// Mode Configuration: SHDN[7], RESET[6], MODE[2:0].
  public static let modeConfiguration: UInt8 = 0x09
  /// SpO2 Configuration: SPO2_ADC_RGE[6:5], SPO2_SR[4:2], LED_PW[1:0].
  public static let spo2Configuration: UInt8 = 0x0A
  /// LED1_PA (red), LED2_PA (IR), LED3_PA (green, MAX30101/MAX30105): 0.2 mA per step, 0x00-0xFF = 0-51 mA.
  public static let led1PulseAmplitude: UInt8 = 0x0C
  public static let led2PulseAmplitude: UInt8 = 0x0D
  public static let led3PulseAmplitude: UInt8 = 0x0E
  /// Multi-LED Mode Control: SLOT2[6:4] SLOT1[2:0] and SLOT4[6:4] SLOT3[2:0].
  public static let multiLEDControl1: UInt8 = 0x11
  public static let multiLEDControl2: UInt8 = 0x12

  // MARK: - Die temperature
  /// TINT: integer part, two's complement, °C.
  public static let temperatureInteger: UInt8 = 0x1F
  /// TFRAC[3:0]: fraction in 0.0625 °C steps.
  public static let temperatureFraction: UInt8 = 0x20
  /// TEMP_EN[0]: starts one conversion; self-clears when done.
  public static let temperatureConfiguration: UInt8 = 0x21

  // MARK: - Identity
  public static let revisionID: UInt8 = 0xFE
  public static let partID: UInt8 = 0xFF
}

/// Bit fields and constants of the MAX30102 registers (same datasheet).
public enum MAX30102Bits {
  /// PART_ID of the MAX30101, MAX30102 and MAX30105 alike.
  public static let expectedPartID: UInt8 = 0x15
  /// The fixed 7-bit I2C address (datasheet: write 0xAE / read 0xAF).
  public static let address: UInt8 = 0x57

  // Interrupt Status 1
  public static let almostFull: UInt8 = 0x80
  public static let dataReady: UInt8 = 0x40
  public static let ambientLightOverflow: UInt8 = 0x20
  public static let powerReady: UInt8 = 0x01
  // Interrupt Status 2
  public static let dieTemperatureReady: UInt8 = 0x02

  // Mode Configuration
  public static let shutdown: UInt8 = 0x80
  public static let reset: UInt8 = 0x40
  public static let modeMask: UInt8 = 0x07
  /// Heart-rate mode: red LED (LED1) only.
  public static let modeHeartRate: UInt8 = 0x02
  /// SpO2 mode: red (LED1) then IR (LED2) in each sample.
  public static let modeSpO2: UInt8 = 0x03
  /// Multi-LED mode: the LEDs named by SLOT1-SLOT4.
  public static let modeMultiLED: UInt8 = 0x07

  // FIFO Configuration
  public static let rolloverEnable: UInt8 = 0x10

  /// FIFO depth in samples (datasheet: "32-sample FIFO").
  public static let fifoDepth = 32
  public static let pointerMask: UInt8 = 0x1F
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
