import Platform

/// The kinds of device node stressmon opens; each knows how a Raspberry Pi user fixes the usual failures.
public enum DeviceKind: String, Sendable {
  case i2c, spi, gpio

  /// The Unix group that grants access to this kind of node on Raspberry Pi OS.
  public var group: String { rawValue }

  /// How to enable the interface when its node does not exist.
  public var enableHint: String {
    switch self {
    case .i2c: "enable I2C with 'sudo raspi-config nonint do_i2c 0' or 'dtparam=i2c_arm=on' in /boot/firmware/config.txt, then reboot"
    case .spi: "enable SPI with 'sudo raspi-config nonint do_spi 0' or 'dtparam=spi=on' in /boot/firmware/config.txt, then reboot"
    case .gpio: "check the board file's GPIO chip label ('gpiodetect' lists the chips) and that /dev/gpiochip* exists"
    }
  }
}

/// A failed system call on a device node: which node, which operation, the errno, and what to do about it.
/// Modelled on swift-system's `Errno`: the raw code is kept, the message is derived.
public struct DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
  public var kind: DeviceKind
  public var path: String
  public var operation: String
  public var errno: Int32
  /// What to do next, chosen from the errno and the device kind unless given.
  public var hint: String

  public init(kind: DeviceKind, path: String, operation: String, errno: Int32, hint: String? = nil) {
    self.kind = kind
    self.path = path
    self.operation = operation
    self.errno = errno
    self.hint = hint ?? Self.defaultHint(kind: kind, errno: errno)
  }

  /// strerror(3) text of the errno.
  public var systemMessage: String { String(cString: strerror(errno)) }

  public var description: String {
    "\(path): \(operation) failed: \(systemMessage) (errno \(errno)); \(hint)"
  }

  /// Whether the node is missing (the interface is not enabled or the path is wrong).
  public var isMissing: Bool { errno == ENOENT || errno == ENODEV || errno == ENXIO }

  public static func defaultHint(kind: DeviceKind, errno code: Int32) -> String {
    switch code {
    case EACCES, EPERM:
      "add your user to group '\(kind.group)' ('sudo usermod -aG \(kind.group) $USER', then log in again)"
    case ENOENT, ENODEV, ENXIO:
      kind.enableHint
    case EBUSY:
      "another program (or a kernel driver) holds the device; stop it or unbind the driver"
    case EREMOTEIO where kind == .i2c, EIO where kind == .i2c:
      "the device did not answer (NACK): check wiring (SDA, SCL, 3.3 V, GND) and the address"
    case ETIMEDOUT:
      "the device did not answer in time: check wiring and power"
    default:
      "check the wiring and the board file"
    }
  }
}
