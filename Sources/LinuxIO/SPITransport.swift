/// The SPI seam: bytes out to a peripheral, one chip-select assertion per `write`. `SPIDevice` implements it
/// over spidev; panel emulators implement it in tests and on the simulated board.
public protocol SPITransport: AnyObject, Sendable {
  /// What messages call the bus, e.g. `/dev/spidev0.0`.
  var path: String { get }
  /// Clocks `bytes` out (write-only: e-paper controllers on a 4-wire bus have nothing to say back).
  /// Throws `DeviceError(kind: .spi)` on failure or after `close()`.
  func write(_ bytes: [UInt8]) throws
  /// Closes the device. Idempotent.
  func close()
}

/// SPI bus settings. Mode 0 (CPOL 0, CPHA 0) and 8-bit words are what SSD168x e-paper controllers expect
/// (SSD1680 datasheet, "Serial Peripheral Interface": data latched on the rising edge of SCL).
public struct SPIConfiguration: Sendable, Hashable {
  public var mode: UInt8
  public var bitsPerWord: UInt8
  public var speedHz: UInt32

  /// Mode 0, 8 bits, 4 MHz: inside the SSD1680's 20 MHz write limit with margin for jumper wires.
  public static let ePaper = SPIConfiguration(mode: 0, bitsPerWord: 8, speedHz: 4_000_000)

  public init(mode: UInt8, bitsPerWord: UInt8, speedHz: UInt32) {
    self.mode = mode
    self.bitsPerWord = bitsPerWord
    self.speedHz = speedHz
  }
}
