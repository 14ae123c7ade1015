import BoardParts
import CGPIODShim
import Platform
import Synchronization

/// A GPIO chip through libgpiod: 1.x (Debian 12) or 2.x (Debian 13 and the Raspberry Pi OS built on it),
/// whichever the `CGPIODShim` target was compiled against (`GPIODChip.backend` says which). Found by label, lines
/// requested by name or offset under the consumer `stressmon`, released on `release()`/`close()` or when the
/// object goes away.
/// Both backends share this code, so they find chips, resolve names (with the `GPIOn` → offset n fall-back of
/// `GPIOLineResolver`) and report errors alike.
///
/// Locking: libgpiod handles are not thread-safe and not Sendable. Every handle (the chip and its requested
/// lines) lives inside one `Mutex` owned by the chip; lines call back into it, so all C calls on one chip are
/// serialised and no pointer escapes the lock.
public final class GPIODChip: GPIOChip {
  // MARK: - Properties

  /// The libgpiod API compiled in (1 or 2) and the library's version string.
  public static let backend = (api: Int(stressmon_gpiod_api()), version: String(cString: stressmon_gpiod_version()))

  public let chipLabel: String
  /// The device node the label led to, e.g. `/dev/gpiochip0`.
  public let devicePath: String
  /// What messages call the chip: its label, since that is what the board file names.
  public var path: String { Self.displayPath(label: chipLabel) }
  private let handles: Mutex<Handles>

  private struct Handles {
    var chip: OpaquePointer?
    var name: String
    var lineCount: Int
    /// Requested lines by offset, with the token of the `GPIODLine` that owns the request (so a stale line
    /// object can never release a later request of the same offset).
    var lines: [UInt32: (request: OpaquePointer, token: UInt64)] = [:]
    var nextToken: UInt64 = 1
  }

  // MARK: - Initialization

  /// Opens the chip whose label is `label` (`gpiodetect` lists labels: `pinctrl-bcm2711` on a Pi 4,
  /// `pinctrl-rp1` on a Pi 5, `pinctrl-bcm2835` on a Zero 2 W) among the `gpiochipN` nodes of `directory`.
  /// Throws `DeviceError(kind: .gpio)` naming the label: ENOENT (no chip has it; the labels found are listed) or
  /// EACCES (a chip could not be opened: the `gpio` group).
  public init(label: String, directory: String = GPIOChipDirectory.defaultPath) throws {
    chipLabel = label
    var denied: (path: String, errno: Int32)?
    var seen: [String] = []
    var match: (chip: OpaquePointer, path: String)?
    for candidate in GPIOChipDirectory.chipPaths(in: directory) {
      errno = 0
      guard let chip = stressmon_gpio_chip_open(candidate) else {
        let code = errno == 0 ? EIO : errno
        if code == EACCES || code == EPERM { denied = denied ?? (candidate, code) }
        continue
      }
      let found = String(cString: stressmon_gpio_chip_label(chip))
      if found == label {
        match = (chip, candidate)
        break
      }
      seen.append("'\(found)'")
      stressmon_gpio_chip_close(chip)
    }
    if let match {
      devicePath = match.path
      handles = Mutex(Handles(
        chip: match.chip, name: String(cString: stressmon_gpio_chip_name(match.chip)),
        lineCount: Int(stressmon_gpio_chip_num_lines(match.chip))))
      return
    }
    if let denied {
      throw DeviceError(
        kind: .gpio, path: Self.displayPath(label: label), operation: "open by label", errno: denied.errno,
        hint: "cannot open \(denied.path) to read its label: "
          + DeviceError.defaultHint(kind: .gpio, errno: denied.errno))
    }
    throw DeviceError(
      kind: .gpio, path: Self.displayPath(label: label), operation: "open by label", errno: ENOENT,
      hint: seen.isEmpty
        ? "no GPIO chip has this label: " + DeviceKind.gpio.enableHint
        : "no GPIO chip has this label (\(directory) has \(seen.joined(separator: ", "))): "
          + "fix [gpio] chip_label in the board file ('gpiodetect' lists the chips)")
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
      guard let offset = Self.resolve(line, chip: chip, label: chipLabel, lineCount: handles.lineCount).lineOffset
      else {
        throw DeviceError(
          kind: .gpio, path: path, operation: "find line \(line)", errno: ENOENT,
          hint: "'gpioinfo \(handles.name)' lists the line names and offsets; fix the board file")
      }
      if handles.lines[offset] != nil {
        throw DeviceError(kind: .gpio, path: path, operation: "request line \(line)", errno: EBUSY,
                          hint: "the board file uses this line twice; give each signal its own line")
      }
      errno = 0
      let request: OpaquePointer?
      switch direction {
      case .output(let initial, let activeLow):
        request = stressmon_gpio_request_line(
          chip, offset, consumer, true, initial, activeLow, STRESSMON_GPIO_BIAS_AS_IS)
      case .input(let activeLow, let bias):
        request = stressmon_gpio_request_line(chip, offset, consumer, false, false, activeLow, Self.cBias(bias))
      }
      guard let request else {
        let code = errno == 0 ? EIO : errno
        var hint: String?
        if code == EBUSY {
          // Name the holder: the kernel knows it (a program's consumer string, or a hog's name).
          let holder = Self.kernelLineInfo(chip, offset: offset)?.consumer.map { "'\($0)'" } ?? "another program"
          hint = "\(holder) holds this line ('gpioinfo \(handles.name)' shows it); stop \(holder) or free the line"
        }
        throw DeviceError(kind: .gpio, path: path, operation: "request line \(line)", errno: code, hint: hint)
      }
      let token = handles.nextToken
      handles.nextToken += 1
      handles.lines[offset] = (request, token)
      return (offset, token)
    }
    return GPIODLine(chip: self, offset: offset, token: token, label: "\(chipLabel) \(line)")
  }

  /// How `line` resolves on this chip (by name, the `GPIOn` fall-back, or missing); `.missing` once closed.
  public func resolve(_ line: GPIOLineID) -> GPIOLineResolution {
    handles.withLock { handles in
      guard let chip = handles.chip else { return .missing }
      return Self.resolve(line, chip: chip, label: chipLabel, lineCount: handles.lineCount)
    }
  }

  /// What `gpioinfo` would say about the chip: its device name and number of lines; nil once closed.
  public func chipInfo() -> (name: String, lineCount: Int)? {
    handles.withLock { handles in
      handles.chip == nil ? nil : (handles.name, handles.lineCount)
    }
  }

  /// Looks a line up without requesting it: nil when the chip has no such line, else how it resolved, the
  /// kernel's name for it, and whether another consumer holds it and who (for `stressmon doctor`).
  public func inspect(_ line: GPIOLineID) -> GPIOLineInfo? {
    handles.withLock { handles in
      guard let chip = handles.chip else { return nil }
      let resolution = Self.resolve(line, chip: chip, label: chipLabel, lineCount: handles.lineCount)
      guard let offset = resolution.lineOffset, let info = Self.kernelLineInfo(chip, offset: offset) else {
        return nil
      }
      return GPIOLineInfo(resolution: resolution, kernelName: info.name, inUse: info.used, consumer: info.consumer)
    }
  }

  public func close() {
    handles.withLock { handles in
      for (_, line) in handles.lines { stressmon_gpio_release(line.request) }
      handles.lines.removeAll()
      if let chip = handles.chip { stressmon_gpio_chip_close(chip) }
      handles.chip = nil
    }
  }

  // MARK: - Line operations (called by GPIODLine)

  fileprivate func set(offset: UInt32, token: UInt64, active: Bool, label: String) throws {
    _ = try withLine(offset: offset, token: token, label: label, operation: "set value") { request in
      stressmon_gpio_set(request, active)
    }
  }

  fileprivate func get(offset: UInt32, token: UInt64, label: String) throws -> Bool {
    try withLine(offset: offset, token: token, label: label, operation: "get value") { request in
      stressmon_gpio_get(request)
    } == 1
  }

  fileprivate func release(offset: UInt32, token: UInt64) {
    handles.withLock { handles in
      guard let line = handles.lines[offset], line.token == token else { return }
      handles.lines[offset] = nil
      stressmon_gpio_release(line.request)
    }
  }

  fileprivate func isRequested(offset: UInt32, token: UInt64) -> Bool {
    handles.withLock { $0.lines[offset]?.token == token }
  }

  // MARK: - Private

  /// Runs `body` on the line's request; its result is a value ≥ 0 or a negative errno.
  private func withLine(
    offset: UInt32, token: UInt64, label: String, operation: String, _ body: (OpaquePointer) -> Int32
  ) throws -> Int32 {
    try handles.withLock { handles in
      guard let line = handles.lines[offset], line.token == token else {
        throw DeviceError(kind: .gpio, path: label, operation: operation, errno: EBADF,
                          hint: "the line was released (shutdown in progress?); request it again")
      }
      let result = body(line.request)
      if result < 0 { throw DeviceError(kind: .gpio, path: label, operation: operation, errno: -result) }
      return result
    }
  }

  /// The kernel's view of one line: its name, its consumer (nil when none) and whether it is in use.
  private static func kernelLineInfo(
    _ chip: OpaquePointer, offset: UInt32
  ) -> (name: String, consumer: String?, used: Bool)? {
    var name = [CChar](repeating: 0, count: 64)
    var consumer = [CChar](repeating: 0, count: 64)
    var used = false
    guard stressmon_gpio_line_info(chip, offset, &name, name.count, &consumer, consumer.count, &used) == 0 else {
      return nil
    }
    let consumerText = text(consumer)
    return (text(name), consumerText.isEmpty ? nil : consumerText, used)
  }

  /// A NUL-terminated C buffer as a String.
  private static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func resolve(
    _ line: GPIOLineID, chip: OpaquePointer, label: String, lineCount: Int
  ) -> GPIOLineResolution {
    GPIOLineResolver.resolve(line, chipLabel: label, lineCount: lineCount) { name in
      let offset = stressmon_gpio_chip_find_line(chip, name)
      return offset >= 0 ? UInt32(offset) : nil
    }
  }

  private static func cBias(_ bias: GPIOBias) -> stressmon_gpio_bias {
    switch bias {
    case .asIs: STRESSMON_GPIO_BIAS_AS_IS
    case .pullDown: STRESSMON_GPIO_BIAS_PULL_DOWN
    case .pullUp: STRESSMON_GPIO_BIAS_PULL_UP
    case .disabled: STRESSMON_GPIO_BIAS_DISABLED
    }
  }

  static func displayPath(label: String) -> String { "GPIO chip '\(label)'" }
}

/// One line as `stressmon doctor` reports it.
public struct GPIOLineInfo: Sendable, Hashable {
  public var resolution: GPIOLineResolution
  /// The kernel's name for the line (empty when it has none).
  public var kernelName: String
  public var inUse: Bool
  public var consumer: String?
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
