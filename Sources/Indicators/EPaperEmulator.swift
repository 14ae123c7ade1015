import LinuxIO
import Platform
import Raster
import Synchronization

/// An SSD1680/SSD1681 panel in software: it takes the SPI byte stream and the DC/RST lines a driver produces,
/// interprets them as the controller does (commands and parameters, RAM address windows and counters, data
/// entry mode, gate scan direction, update sequences, waveform LUT, deep sleep, BUSY timing on the injected
/// clock) and keeps the image the glass would show. Tests assert that image, not the bytes.
///
/// What the glass does on an update: a mode-1 (full) waveform drives every pixel to the BW RAM; an OTP mode-2
/// (partial) waveform drives only pixels whose BW bit differs from the RED RAM (the previous frame), so a wrong
/// previous frame leaves stale pixels (ghosts), as on a real panel; a LUT written to the register is run by
/// summing its drive per pixel transition (`SSD1680Waveform.netDrive`): enough frames one way flip the pixel, a
/// short touch-up does not. Power-up RAM and glass are noise.
///
/// Anything a real chip would not accept (a command while BUSY or asleep, a display step without analog power or
/// waveform, a MUX that does not match the panel) is recorded in `faults`.
///
/// Locking: all state is in one `Mutex`; the SPI and pin views call into it.
public final class EPaperEmulator: Sendable {
  // MARK: - Properties

  public let model: EPaperModel
  private let clock: any IndicatorClock
  private let state: Mutex<EPaperControllerState>

  /// Busy times of steps that do not drive the glass (typical values; the datasheets give none tighter).
  static let hardwareResetBusyMilliseconds: Int64 = 5
  static let softwareResetBusyMilliseconds: Int64 = 10
  static let sequenceBusyMilliseconds: Int64 = 50

  // MARK: - Initialization

  /// - Parameters:
  ///   - seed: seeds the power-up noise in RAM and on the glass.
  ///   - powerSwitched: the panel's supply is switched by a PWR line (Waveshare HAT rev 2.x), off until the driver
  ///     raises `power`; false: always powered (older HATs, bare panels).
  public init(model: EPaperModel, clock: any IndicatorClock, seed: UInt64 = 0x5EED, powerSwitched: Bool = false) {
    self.model = model
    self.clock = clock
    var initial = EPaperControllerState(model: model, seed: seed)
    initial.powered = !powerSwitched
    state = Mutex(initial)
  }

  // MARK: - Wiring (what the driver is given)

  /// The SPI bus, as `/dev/spidev0.0` would be.
  public var spi: any SPITransport { EmulatedSPI(emulator: self) }
  /// Data/command select: low = command byte, high = parameters or RAM data.
  public var dataCommand: any GPIOLine { EmulatedPin(emulator: self, pin: .dataCommand) }
  /// Reset, active low (a low pulse resets the controller and wakes it from deep sleep).
  public var reset: any GPIOLine { EmulatedPin(emulator: self, pin: .reset) }
  /// BUSY, high while the controller works (and all through deep sleep); low without power (the pull-down).
  public var busy: any GPIOLine { EmulatedPin(emulator: self, pin: .busy) }
  /// PWR, the supply switch of a power-switched panel (high = powered).
  public var power: any GPIOLine { EmulatedPin(emulator: self, pin: .power) }

  // MARK: - Observation

  /// What the glass shows, in the controller's native orientation.
  public var nativeImage: Bitmap { state.withLock { $0.glass } }

  /// What the glass shows, turned back to reading orientation (compare with the frame the layout drew).
  public var image: Bitmap { nativeImage.rotated(clockwiseQuarterTurns: 4 - model.quarterTurnsToNative) }

  /// Everything a real controller would not have accepted.
  public var faults: [String] { state.withLock { $0.faults } }

  /// Completed display updates by mode.
  public var fullRefreshCount: Int { state.withLock { $0.fullRefreshes } }
  public var partialRefreshCount: Int { state.withLock { $0.partialRefreshes } }

  public var isAsleep: Bool { state.withLock { $0.asleep } }

  /// Whether the controller has power now.
  public var isPowered: Bool { state.withLock { $0.powered } }

  /// Pins the driver has released.
  public var releasedPins: Set<String> { state.withLock { $0.releasedPins } }

  /// Whether the SPI device was closed.
  public var spiClosed: Bool { state.withLock { $0.spiClosed } }

  /// Makes BUSY stay high forever (a controller that never finishes, a BUSY line shorted high), for timeout tests.
  public func holdBusy(_ held: Bool) { state.withLock { $0.busyHeld = held } }

  // MARK: - Inputs (called by the views)

  fileprivate func spiWrite(_ bytes: [UInt8]) throws {
    let now = clock.nowMilliseconds()
    try state.withLock { state in
      guard !state.spiClosed else {
        throw DeviceError(kind: .spi, path: "emulated \(model.name)", operation: "write", errno: EBADF,
                          hint: "the device was closed")
      }
      state.receive(bytes, now: now)
      // A real controller raises BUSY as the update starts; computing the new glass here takes time of its own
      // (more than a short update lasts at 10× in a debug build), so BUSY counts from the end of that work.
      if let busy = state.lastUpdateBusy {
        state.lastUpdateBusy = nil
        state.busyUntil = max(state.busyUntil, clock.nowMilliseconds() + busy)
      }
    }
  }

  fileprivate func setPin(_ pin: EmulatedPin.Pin, _ high: Bool) throws {
    let now = clock.nowMilliseconds()
    try state.withLock { state in
      guard !state.releasedPins.contains(pin.rawValue) else { throw EmulatedPin.releasedError(pin) }
      switch pin {
      case .dataCommand: state.dataCommandHigh = high
      case .reset: state.setReset(high: high, now: now)
      case .busy: state.faults.append("the driver drove BUSY, an output of the panel")
      case .power: state.setPower(on: high, now: now)
      }
    }
  }

  fileprivate func getPin(_ pin: EmulatedPin.Pin) throws -> Bool {
    let now = clock.nowMilliseconds()
    return try state.withLock { state in
      guard !state.releasedPins.contains(pin.rawValue) else { throw EmulatedPin.releasedError(pin) }
      switch pin {
      case .busy: return state.powered && (state.busyHeld || state.asleep || now < state.busyUntil)
      case .dataCommand: return state.dataCommandHigh
      case .reset: return state.resetHigh
      case .power: return state.powered
      }
    }
  }

  fileprivate func releasePin(_ pin: EmulatedPin.Pin) {
    _ = state.withLock { $0.releasedPins.insert(pin.rawValue) }
  }

  fileprivate func closeSPI() {
    state.withLock { $0.spiClosed = true }
  }
}

// MARK: - Views

private final class EmulatedSPI: SPITransport {
  let emulator: EPaperEmulator
  init(emulator: EPaperEmulator) { self.emulator = emulator }
  var path: String { "emulated \(emulator.model.name)" }
  func write(_ bytes: [UInt8]) throws { try emulator.spiWrite(bytes) }
  func close() { emulator.closeSPI() }
}

private final class EmulatedPin: GPIOLine {
  enum Pin: String { case dataCommand = "DC", reset = "RST", busy = "BUSY", power = "PWR" }
  let emulator: EPaperEmulator
  let pin: Pin

  init(emulator: EPaperEmulator, pin: Pin) {
    self.emulator = emulator
    self.pin = pin
  }

  var label: String { "emulated \(emulator.model.name) \(pin.rawValue)" }
  func set(_ active: Bool) throws { try emulator.setPin(pin, active) }
  func get() throws -> Bool { try emulator.getPin(pin) }
  func release() { emulator.releasePin(pin) }
  var isReleased: Bool { emulator.releasedPins.contains(pin.rawValue) }

  static func releasedError(_ pin: Pin) -> DeviceError {
    DeviceError(kind: .gpio, path: "emulated \(pin.rawValue)", operation: "access", errno: EBADF,
                hint: "the line was released; request it again")
  }
}
