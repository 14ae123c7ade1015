import BoardParts

extension MAX30102Emulator {
  /// How the emulated part is set up and behaves (part and ids, optics, faults to show).
  public struct Options: Sendable {
    public var part: SensorPart = .max30102
    public var partID: UInt8 = MAX30102Bits.expectedPartID
    public var revisionID: UInt8 = 0x03
    /// A clone board with LED1 wired to the IR LED and LED2 to the red one.
    public var ledsSwapped = false
    /// Fractional error of the part's oscillator: +0.02 makes samples come 2 % fast.
    public var oscillatorError = 0.0
    public var dieTemperature = 30.5
    public var finger = EmulatedFinger()
    public var junkInUnusedBits = true
    /// Keep every sample pushed into the FIFO in `log`, for tests.
    public var logsSamples = false
    /// Time the RESET bit stays set (the datasheet gives none; the part is quick).
    public var resetDuration: Int64 = 1_000_000
    /// Nanoseconds after power-on from which every transfer hangs, never returning (a wedged bus: SDA held low,
    /// a driver stuck in the kernel). For the systemd watchdog test (`[sensor] stall_after_s`); nil: never.
    public var stallAfter: Int64?

    public init() {}
  }
}
