import BoardParts
import CGPIOD
import Platform
import Synchronization

/// A GPIO chip through libgpiod v1 (Debian 12 ships 1.6.3): opened by label, lines requested by name or offset
/// under the consumer `stressmon`, released on `release()`/`close()` or when the object goes away.
///
/// Locking: libgpiod handles are not thread-safe and not Sendable. Every handle (the chip and its requested
/// lines) lives inside one `Mutex` owned by the chip; lines call back into it, so all C calls on one chip are
/// serialised and no pointer escapes the lock.
public final class GPIODChip: GPIOChip {
  // MARK: - Properties

  public let chipLabel: String
  /// What messages call the chip: its label, since that is what the board file names.
  public var path: String { Self.displayPath(label: chipLabel) }
  private let handles: Mutex<Handles>

  private struct Handles {
    var chip: OpaquePointer?
    /// Requested lines by offset, with the token of the `GPIODLine` that owns the request (so a stale line
    /// object can never release a later request of the same offset).
    var lines: [UInt32: (handle: OpaquePointer, token: UInt64)] = [:]
    var nextToken: UInt64 = 1
  }

  // MARK: - Initialization

  /// Opens the chip whose label is `label` (`gpiodetect` lists labels: `pinctrl-bcm2711` on a Pi 4,
  /// `pinctrl-rp1` on a Pi 5, `pinctrl-bcm2835` on a Zero 2 W). Throws `DeviceError(kind: .gpio)` naming the label.
  public init(label: String) throws {
    chipLabel = label
    errno = 0
    guard let chip = gpiod_chip_open_by_label(label) else {
      let code = errno == 0 ? ENOENT : errno
      throw DeviceError(
        kind: .gpio, path: Self.displayPath(label: label), operation: "open by label", errno: code,
        hint: code == ENOENT
          ? "no GPIO chip has this label: " + DeviceKind.gpio.enableHint
          : nil)
    }
    handles = Mutex(Handles(chip: chip))
  }

  deinit {
    close()
  }

  // MARK: - Public

  public func request(_ line: GPIOLineID, direction: GPIODirection, consumer: String) throws -> any GPIOLine {
    let (offset, token) = try handles.withLock { handles -> (UInt32, UInt64) in
      guard let chip = handles.chip else {
        throw DeviceError(kind: .gpio, path: path, operation: "request line \(line)", errno: EBADF,
                          hint: "the chip was closed; open it again")
      }
      let handle: OpaquePointer?
      errno = 0
      switch line {
      case .name(let name): handle = gpiod_chip_find_line(chip, name)
      case .offset(let offset): handle = gpiod_chip_get_line(chip, offset)
      }
      guard let handle else {
        let code = errno == 0 ? ENOENT : errno
        throw DeviceError(
          kind: .gpio, path: path, operation: "find line \(line)", errno: code,
          hint: "'gpioinfo \(chipLabel)' lists the line names and offsets; fix the board file")
      }
      let offset = gpiod_line_offset(handle)
      if handles.lines[offset] != nil {
        throw DeviceError(kind: .gpio, path: path, operation: "request line \(line)", errno: EBUSY,
                          hint: "the board file uses this line twice; give each signal its own line")
      }
      let status: Int32
      switch direction {
      case .output(let initial, let activeLow):
        status = gpiod_line_request_output_flags(handle, consumer, Self.flags(activeLow: activeLow), initial ? 1 : 0)
      case .input(let activeLow):
        status = gpiod_line_request_input_flags(handle, consumer, Self.flags(activeLow: activeLow))
      }
      if status != 0 {
        throw DeviceError(kind: .gpio, path: path, operation: "request line \(line)", errno: errno)
      }
      let token = handles.nextToken
      handles.nextToken += 1
      handles.lines[offset] = (handle, token)
      return (offset, token)
    }
    return GPIODLine(chip: self, offset: offset, token: token, label: "\(chipLabel) \(line)")
  }

  /// What `gpioinfo` would say about the chip: its device name and number of lines; nil once closed.
  public func chipInfo() -> (name: String, lineCount: Int)? {
    handles.withLock { handles in
      guard let chip = handles.chip else { return nil }
      return (String(cString: gpiod_chip_name(chip)), Int(gpiod_chip_num_lines(chip)))
    }
  }

  /// Looks a line up without requesting it: nil when the chip has no such line, else whether another consumer
  /// holds it and who (for `stressmon doctor`).
  public func inspect(_ line: GPIOLineID) -> (inUse: Bool, consumer: String?)? {
    handles.withLock { handles in
      guard let chip = handles.chip else { return nil }
      let handle: OpaquePointer?
      switch line {
      case .name(let name): handle = gpiod_chip_find_line(chip, name)
      case .offset(let offset): handle = gpiod_chip_get_line(chip, offset)
      }
      guard let handle else { return nil }
      return (gpiod_line_is_used(handle), gpiod_line_consumer(handle).map { String(cString: $0) })
    }
  }

  public func close() {
    handles.withLock { handles in
      for (_, line) in handles.lines { gpiod_line_release(line.handle) }
      handles.lines.removeAll()
      if let chip = handles.chip { gpiod_chip_close(chip) }
      handles.chip = nil
    }
  }

  // MARK: - Line operations (called by GPIODLine)

  fileprivate func set(offset: UInt32, token: UInt64, active: Bool, label: String) throws {
    try withLine(offset: offset, token: token, label: label, operation: "set value") { line in
      gpiod_line_set_value(line, active ? 1 : 0)
    }
  }

  fileprivate func get(offset: UInt32, token: UInt64, label: String) throws -> Bool {
    var value: Int32 = 0
    try withLine(offset: offset, token: token, label: label, operation: "get value") { line in
      value = gpiod_line_get_value(line)
      return value
    }
    return value == 1
  }

  fileprivate func release(offset: UInt32, token: UInt64) {
    handles.withLock { handles in
      guard let line = handles.lines[offset], line.token == token else { return }
      handles.lines[offset] = nil
      gpiod_line_release(line.handle)
    }
  }

  fileprivate func isRequested(offset: UInt32, token: UInt64) -> Bool {
    handles.withLock { $0.lines[offset]?.token == token }
  }

  // MARK: - Private

  private func withLine(
    offset: UInt32, token: UInt64, label: String, operation: String, _ body: (OpaquePointer) -> Int32
  ) throws {
    try handles.withLock { handles in
      guard let line = handles.lines[offset], line.token == token else {
        throw DeviceError(kind: .gpio, path: label, operation: operation, errno: EBADF,
                          hint: "the line was released (shutdown in progress?); request it again")
      }
      errno = 0
      if body(line.handle) < 0 {
        throw DeviceError(kind: .gpio, path: label, operation: operation, errno: errno == 0 ? EIO : errno)
      }
    }
  }

  private static func flags(activeLow: Bool) -> Int32 {
    activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
  }

  static func displayPath(label: String) -> String { "GPIO chip '\(label)'" }
}

/// A line requested through `GPIODChip`. Keeps its chip alive; released explicitly or when dropped.
final class GPIODLine: GPIOLine {
  let chip: GPIODChip
  let offset: UInt32
  let token: UInt64
  let label: String

  init(chip: GPIODChip, offset: UInt32, token: UInt64, label: String) {
    self.chip = chip
    self.offset = offset
    self.token = token
    self.label = label
  }

  deinit {
    chip.release(offset: offset, token: token)
  }

  func set(_ active: Bool) throws { try chip.set(offset: offset, token: token, active: active, label: label) }
  func get() throws -> Bool { try chip.get(offset: offset, token: token, label: label) }
  func release() { chip.release(offset: offset, token: token) }
  var isReleased: Bool { !chip.isRequested(offset: offset, token: token) }
}
