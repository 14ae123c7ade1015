import BoardParts

/// The GPIO seam: a chip hands out requested lines; a line is set, read and released. `GPIODChip` implements it on
/// a board through libgpiod 1.x or 2.x (chosen at compile time by the CGPIODShim target); emulators implement it
/// in tests and on the simulated board.

/// What a line is requested for, with the electrical options the kernel applies.
public enum GPIODirection: Sendable, Hashable {
  /// Driven by us. `activeLow` inverts the level (an LED wired to 3.3 V through its anode is on when low).
  case output(initial: Bool, activeLow: Bool = false)
  /// Read by us. `bias` is the pad's pull resistor (a panel's BUSY: pull-down, so an open wire reads low).
  case input(activeLow: Bool = false, bias: GPIOBias = .asIs)
}

/// The internal pull resistor of an input line (GPIO_V2_LINE_FLAG_BIAS_* of the kernel's gpio-cdev; libgpiod 1.5+
/// and 2.x both set it). The kernel ignores it on a controller without bias control.
public enum GPIOBias: String, Sendable, Hashable {
  case asIs = "as-is", pullDown = "pull-down", pullUp = "pull-up", disabled
}

// MARK: - Protocols

/// One requested GPIO line. Values are logical (`true` = active), the backend applies active-low.
public protocol GPIOLine: AnyObject, Sendable {
  /// A name for messages and timelines, e.g. `"pinctrl-bcm2711 'GPIO17'"`.
  var label: String { get }
  /// Drives an output line. Throws `DeviceError(kind: .gpio)` when the kernel refuses or the line was released.
  func set(_ active: Bool) throws
  /// Reads the line (input or output).
  func get() throws -> Bool
  /// Gives the line back to the kernel. Idempotent; a released line throws on `set`/`get`.
  func release()
  /// Whether `release()` has run.
  var isReleased: Bool { get }
}

/// A GPIO controller (one `/dev/gpiochipN`), found by its label.
public protocol GPIOChip: AnyObject, Sendable {
  /// The label the chip was opened by, e.g. `"pinctrl-bcm2711"`.
  var chipLabel: String { get }
  /// Requests a line for exclusive use under `consumer` (shown by `gpioinfo`).
  func request(_ line: GPIOLineID, direction: GPIODirection, consumer: String) throws -> any GPIOLine
  /// Releases every line still requested and closes the chip. Idempotent.
  func close()
}

extension GPIOChip {
  /// Requests an output line under the consumer name `stressmon`.
  public func requestOutput(_ line: GPIOLineID, initial: Bool = false, activeLow: Bool = false) throws -> any GPIOLine {
    try request(line, direction: .output(initial: initial, activeLow: activeLow), consumer: GPIOConsumer.name)
  }

  /// Requests an input line under the consumer name `stressmon`.
  public func requestInput(_ line: GPIOLineID, activeLow: Bool = false, bias: GPIOBias = .asIs) throws -> any GPIOLine {
    try request(line, direction: .input(activeLow: activeLow, bias: bias), consumer: GPIOConsumer.name)
  }
}

/// The consumer name every line is requested under, so `gpioinfo` shows who holds it.
public enum GPIOConsumer {
  public static let name = "stressmon"
}
