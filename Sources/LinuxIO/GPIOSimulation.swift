import BoardParts
import Platform
import Synchronization

/// One change on a simulated line, stamped with the simulation's time.
public struct GPIOEvent: Sendable, Hashable, CustomStringConvertible {
  public enum Change: Sendable, Hashable {
    case requested(active: Bool)
    case set(active: Bool)
    case released
  }

  public var milliseconds: Int64
  public var line: String
  public var change: Change

  public init(milliseconds: Int64, line: String, change: Change) {
    self.milliseconds = milliseconds
    self.line = line
    self.change = change
  }

  public var description: String {
    switch change {
    case .requested(let active): "\(milliseconds) ms \(line) requested \(active ? "on" : "off")"
    case .set(let active): "\(milliseconds) ms \(line) \(active ? "on" : "off")"
    case .released: "\(milliseconds) ms \(line) released"
    }
  }
}

/// A GPIO chip with no hardware behind it: the simulated board's LEDs, and the emulator tests pass instead of
/// libgpiod. Output lines record every change with a timestamp from `timestamp` (the caller's clock), so the
/// CLI can print the LED timeline and tests can assert it; input lines read what `setInput` last stored.
///
/// Locking: one `Mutex` holds the event log, line values and request table for all lines of the chip.
public final class SimulatedGPIOChip: GPIOChip {
  // MARK: - Properties

  public let chipLabel: String
  private let timestamp: @Sendable () -> Int64
  private let state = Mutex(State())

  private struct State {
    var events: [GPIOEvent] = []
    var values: [String: Bool] = [:]
    var requested: Set<String> = []
    var closed = false
  }

  // MARK: - Initialization

  /// - Parameter timestamp: the time in milliseconds events are stamped with (e.g. an `IndicatorClock`).
  public init(label: String = "simulated", timestamp: @escaping @Sendable () -> Int64) {
    chipLabel = label
    self.timestamp = timestamp
  }

  // MARK: - GPIOChip

  public func request(_ line: GPIOLineID, direction: GPIODirection, consumer: String) throws -> any GPIOLine {
    let key = "\(line)".replacingQuotes()
    let now = timestamp()
    try state.withLock { state in
      guard !state.closed else {
        throw DeviceError(kind: .gpio, path: "GPIO chip '\(chipLabel)'", operation: "request line \(line)",
                          errno: EBADF, hint: "the chip was closed; open it again")
      }
      guard !state.requested.contains(key) else {
        throw DeviceError(kind: .gpio, path: "GPIO chip '\(chipLabel)'", operation: "request line \(line)",
                          errno: EBUSY, hint: "the board file uses this line twice; give each signal its own line")
      }
      state.requested.insert(key)
      if case .output(let initial, _) = direction {
        state.values[key] = initial
        state.events.append(GPIOEvent(milliseconds: now, line: key, change: .requested(active: initial)))
      }
    }
    return SimulatedGPIOLine(chip: self, key: key)
  }

  public func close() {
    let now = timestamp()
    state.withLock { state in
      for key in state.requested.sorted() {
        state.events.append(GPIOEvent(milliseconds: now, line: key, change: .released))
      }
      state.requested.removeAll()
      state.closed = true
    }
  }

  // MARK: - Observation

  /// Every event so far, oldest first.
  public var events: [GPIOEvent] { state.withLock { $0.events } }

  /// Returns the events recorded since the last drain and forgets them (for printing a live timeline).
  public func drainEvents() -> [GPIOEvent] {
    state.withLock { state in
      defer { state.events.removeAll(keepingCapacity: true) }
      return state.events
    }
  }

  /// The current logical value of a line (name as requested, without quotes), nil if never set.
  public func value(of line: String) -> Bool? { state.withLock { $0.values[line] } }

  /// Lines currently requested (not yet released).
  public var requestedLines: Set<String> { state.withLock { $0.requested } }

  /// Sets what an input line reads.
  public func setInput(_ line: String, _ active: Bool) {
    state.withLock { $0.values[line] = active }
  }

  // MARK: - Line operations

  fileprivate func set(_ key: String, _ active: Bool) throws {
    let now = timestamp()
    try state.withLock { state in
      guard state.requested.contains(key) else { throw Self.releasedError(key) }
      state.values[key] = active
      state.events.append(GPIOEvent(milliseconds: now, line: key, change: .set(active: active)))
    }
  }

  fileprivate func get(_ key: String) throws -> Bool {
    try state.withLock { state in
      guard state.requested.contains(key) else { throw Self.releasedError(key) }
      return state.values[key] ?? false
    }
  }

  fileprivate func release(_ key: String) {
    let now = timestamp()
    state.withLock { state in
      guard state.requested.remove(key) != nil else { return }
      state.events.append(GPIOEvent(milliseconds: now, line: key, change: .released))
    }
  }

  fileprivate func isRequested(_ key: String) -> Bool { state.withLock { $0.requested.contains(key) } }

  private static func releasedError(_ key: String) -> DeviceError {
    DeviceError(kind: .gpio, path: key, operation: "access", errno: EBADF,
                hint: "the line was released (shutdown in progress?); request it again")
  }
}

/// A line of a `SimulatedGPIOChip`.
final class SimulatedGPIOLine: GPIOLine {
  let chip: SimulatedGPIOChip
  let key: String

  init(chip: SimulatedGPIOChip, key: String) {
    self.chip = chip
    self.key = key
  }

  var label: String { "\(chip.chipLabel) \(key)" }
  func set(_ active: Bool) throws { try chip.set(key, active) }
  func get() throws -> Bool { try chip.get(key) }
  func release() { chip.release(key) }
  var isReleased: Bool { !chip.isRequested(key) }
}

extension String {
  fileprivate func replacingQuotes() -> String { String(filter { $0 != "'" }) }
}
