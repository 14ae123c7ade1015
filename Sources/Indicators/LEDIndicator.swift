import LinuxIO
import Logging
import StressModel

/// Drives the board's LEDs: holds the current state's `LEDProgram`, writes the lines at each transition on the
/// injected clock, and on shutdown turns every LED off and releases the lines (a released line keeps its last
/// level on most GPIO controllers, so an LED left on would stay on after the daemon exits).
///
/// Two ways to drive it: `run(untilMilliseconds:)` as a background task (the daemon), or `tick()` at chosen
/// instants (tests on a `VirtualIndicatorClock` assert the exact timeline).
public actor LEDIndicator {
  // MARK: - Properties

  public let wiring: LEDWiring
  public private(set) var state: IndicatorState = .off
  public private(set) var program: LEDProgram
  private let lines: [any GPIOLine]
  private let chip: (any GPIOChip)?
  private let clock: any IndicatorClock
  private var programStart: Int64
  /// What the lines show now; they are requested dark.
  private var writtenMask: UInt8? = 0
  private var sleeper: Task<Void, any Error>?
  private var isShutDown = false
  /// Called after every tick that wrote the lines (the simulated board prints its timeline from it).
  private var tickObserver: (@Sendable () -> Void)?
  private let logger = Logger(label: "stressmon.indicators.led")

  /// Longest single wait of the run loop while nothing changes (a steady LED), so it notices cancellation.
  public static let idleWakeMilliseconds: Int64 = 60_000

  // MARK: - Initialization

  /// Requests the wiring's lines on `chip` (outputs, initially dark) under the consumer `stressmon`. The
  /// indicator owns the chip from then on and closes it on `shutdown()`.
  public init(wiring: LEDWiring, chip: any GPIOChip, clock: any IndicatorClock) throws {
    var requested: [any GPIOLine] = []
    do {
      for line in wiring.lines {
        requested.append(try chip.requestOutput(line, initial: false, activeLow: wiring.activeLow))
      }
    } catch {
      for line in requested { line.release() }
      chip.close()
      throw error
    }
    self.init(wiring: wiring, lines: requested, chip: chip, clock: clock)
  }

  /// Opens the wiring's chip through libgpiod v1 and requests its lines. Throws `DeviceError(kind: .gpio)` naming
  /// the chip label when there is no such chip (e.g. on a machine without GPIO).
  public static func open(wiring: LEDWiring, clock: any IndicatorClock = SystemIndicatorClock()) throws -> LEDIndicator {
    try LEDIndicator(wiring: wiring, chip: GPIODChip(label: wiring.chipLabel), clock: clock)
  }

  private init(wiring: LEDWiring, lines: [any GPIOLine], chip: (any GPIOChip)?, clock: any IndicatorClock) {
    self.wiring = wiring
    self.lines = lines
    self.chip = chip
    self.clock = clock
    program = LEDProgram(state: .off, wiring: wiring)
    programStart = clock.nowMilliseconds()
  }

  // MARK: - Public

  /// Switches to `state` now (its program restarts from its first step) and writes the lines at once.
  /// Showing the state already shown changes nothing, so a category re-reported every window keeps its rhythm.
  public func show(_ newState: IndicatorState) throws {
    guard !isShutDown, newState != state else { return }
    state = newState
    program = LEDProgram(state: newState, wiring: wiring)
    programStart = clock.nowMilliseconds()
    logger.debug("led state", metadata: ["state": "\(newState)"])
    _ = try tick()
    sleeper?.cancel()
  }

  /// Writes the lines for the current instant (only those that change) and returns when the next change is due
  /// in clock milliseconds, or nil if the LEDs stay as they are until the next `show`.
  @discardableResult
  public func tick() throws -> Int64? {
    guard !isShutDown else { return nil }
    let elapsed = clock.nowMilliseconds() - programStart
    if try write(mask: program.litMask(atElapsed: elapsed)) { tickObserver?() }
    return program.nextChange(afterElapsed: elapsed).map { programStart + $0 }
  }

  /// Calls `observer` after each tick that changed a line, on the indicator (so a timeline can be printed as the
  /// LEDs change, with no timer of its own).
  public func observeTicks(_ observer: @escaping @Sendable () -> Void) {
    tickObserver = observer
  }

  /// Runs the scheduler until `deadline` (clock milliseconds) or until the task is cancelled. With a virtual
  /// clock pass a deadline: virtual sleeps return at once.
  public func run(untilMilliseconds deadline: Int64? = nil) async throws {
    while !Task.isCancelled && !isShutDown {
      let now = clock.nowMilliseconds()
      if let deadline, now >= deadline { return }
      var wake = try tick() ?? (now + Self.idleWakeMilliseconds)
      if let deadline { wake = min(wake, deadline) }
      let clock = self.clock
      let sleeper = Task { try await clock.sleep(untilMilliseconds: wake) }
      self.sleeper = sleeper
      // A cancelled sleep means `show` changed the program (loop and write the new one) or this task was
      // cancelled (the loop condition ends it).
      await withTaskCancellationHandler {
        _ = try? await sleeper.value
      } onCancel: {
        sleeper.cancel()
      }
    }
  }

  /// Turns every LED off, releases the lines and closes the chip. Idempotent; call it on exit and on SIGTERM.
  public func shutdown() {
    guard !isShutDown else { return }
    sleeper?.cancel()
    for line in lines {
      do {
        try line.set(false)
      } catch {
        logger.warning("could not turn LED off before release", metadata: ["line": "\(line.label)", "error": "\(error)"])
      }
      line.release()
    }
    chip?.close()
    isShutDown = true
    state = .off
  }

  /// Whether every line has been released.
  public var linesReleased: Bool { lines.allSatisfy(\.isReleased) }

  // MARK: - Private

  /// Writes the lines that differ from what they show; returns whether any did.
  private func write(mask: UInt8) throws -> Bool {
    let previous = writtenMask
    var wrote = false
    for (index, line) in lines.enumerated() {
      let bit = UInt8(1) << UInt8(index)
      let lit = mask & bit != 0
      if let previous, (previous & bit != 0) == lit { continue }
      try line.set(lit)
      wrote = true
    }
    writtenMask = mask
    return wrote
  }
}

extension LEDIndicator {
  /// An indicator on simulated lines for the simulated board: its chip records the timeline (print it with
  /// `LEDTimeline`).
  public static func simulated(wiring: LEDWiring, clock: any IndicatorClock) throws -> (LEDIndicator, SimulatedGPIOChip) {
    let chip = SimulatedGPIOChip(label: wiring.chipLabel, timestamp: { clock.nowMilliseconds() })
    return (try LEDIndicator(wiring: wiring, chip: chip, clock: clock), chip)
  }
}
