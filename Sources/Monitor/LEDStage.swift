import Indicators
import LinuxIO
import Logging
import StressModel
import Synchronization

/// The LEDs as a pipeline stage: takes the newest `IndicatorState` from its mailbox and shows it. On a paced run
/// the indicator's own scheduler blinks on the run's clock; at `--speed max` the LED clock is virtual and is
/// moved along with the data, so the timeline is the one a real-time run would show. On the simulated board the
/// recorded line changes become `LEDFrame` events (the first period of each state, then one "repeats" note).
final class LEDStage: Sendable {
  struct Command: Sendable {
    var state: IndicatorState
    /// Data milliseconds when the state begins.
    var milliseconds: Int64
  }

  private struct Timeline {
    var state: IndicatorState = .off
    var startMilliseconds: Int64 = 0
    var periodMilliseconds: Int64 = 0
    var periodic = false
    var announced = true
    var lit: [String: Bool] = [:]
  }

  let indicator: LEDIndicator
  let wiring: LEDWiring
  let mailbox: Mailbox<Command>
  private let clock: any IndicatorClock
  private let virtualClock: VirtualIndicatorClock?
  private let chip: SimulatedGPIOChip?
  private let emit: @Sendable (MonitorEvent) -> Void
  private let dataClock: DataClock
  private let timeline = Mutex(Timeline())
  private let logger = Logger(label: "stressmon.monitor.leds")

  /// Line changes this close together are one change of the LEDs.
  static let sameInstantMilliseconds: Int64 = 2

  init(
    indicator: LEDIndicator, wiring: LEDWiring, clock: any IndicatorClock, virtualClock: VirtualIndicatorClock?,
    chip: SimulatedGPIOChip?, policy: Mailbox<Command>.Policy, dataClock: DataClock,
    emit: @escaping @Sendable (MonitorEvent) -> Void
  ) {
    self.dataClock = dataClock
    self.indicator = indicator
    self.wiring = wiring
    self.clock = clock
    self.virtualClock = virtualClock
    self.chip = chip
    mailbox = Mailbox(policy: policy)
    self.emit = emit
  }

  // MARK: - Tasks

  /// Shows each state handed over until the mailbox is finished.
  func consume() async {
    if chip != nil && virtualClock == nil {
      // Paced runs on the simulated board: the timeline is printed as the LEDs change (no timer of its own).
      await indicator.observeTicks { [weak self] in self?.drainTimeline() }
    }
    while let command = await mailbox.next() {
      if virtualClock != nil { await advanceVirtual(to: command.milliseconds) }
      let program = LEDProgram(state: command.state, wiring: wiring)
      let started = clock.nowMilliseconds()
      // The new state's first period starts now; set before `show`, whose first tick prints it.
      timeline.withLock { timeline in
        timeline.state = command.state
        timeline.startMilliseconds = started
        timeline.periodMilliseconds = Int64(program.periodMilliseconds)
        timeline.periodic = !program.isConstant
        timeline.announced = program.isConstant
      }
      do {
        try await indicator.show(command.state)
      } catch {
        logger.error("cannot drive the LEDs", metadata: ["error": "\(error)"])
      }
      emit(.ledState(command.state, at: EventTime(dataSeconds: dataClock.dataSeconds(clockMilliseconds: started))))
      if virtualClock != nil { drainTimeline() }
    }
  }

  /// Paced runs: the indicator's blink scheduler on the run's clock, until cancelled.
  func runScheduler() async {
    do {
      try await indicator.run()
    } catch is CancellationError {
    } catch {
      logger.error("LED scheduler stopped", metadata: ["error": "\(error)"])
    }
  }

  /// `--speed max`: plays the current state's first period up to `milliseconds` and moves the LED clock there.
  func advanceVirtual(to milliseconds: Int64) async {
    guard let virtualClock else { return }
    let end = timeline.withLock { $0.startMilliseconds + $0.periodMilliseconds }
    while true {
      let next: Int64?
      do { next = try await indicator.tick() } catch { break }
      guard let next, next <= milliseconds, next <= end, next > virtualClock.nowMilliseconds() else { break }
      virtualClock.advance(to: next)
    }
    virtualClock.advance(to: milliseconds)
  }

  /// LEDs off, lines released; the last line changes become events.
  func shutdown(atMilliseconds milliseconds: Int64) async -> Bool {
    if virtualClock != nil { await advanceVirtual(to: milliseconds) }
    await indicator.shutdown()
    drainTimeline(final: true)
    return await indicator.linesReleased
  }

  // MARK: - Timeline

  /// Turns the simulated chip's new events into frames: everything during the first period of a state, then a
  /// single "repeats" note (a steady state over hours would otherwise print a line per blink).
  func drainTimeline(final: Bool = false) {
    guard let chip else { return }
    let events = chip.drainEvents()
    let names = wiring.lineNames
    let keys = wiring.lines.map { "\($0)".filter { $0 != "'" } }
    let now = clock.nowMilliseconds()
    var frames: [LEDFrame] = []
    var repeatNote: MonitorEvent?
    timeline.withLock { timeline in
      var index = 0
      while index < events.count {
        let instant = events[index].milliseconds
        var changed = false
        let inFirstPeriod = instant < timeline.startMilliseconds + max(1, timeline.periodMilliseconds)
        // One tick writes every line within microseconds, which can straddle a millisecond: one instant.
        while index < events.count, events[index].milliseconds - instant <= Self.sameInstantMilliseconds {
          let event = events[index]
          switch event.change {
          case .requested(let active), .set(let active):
            changed = changed || timeline.lit[event.line] != active
            timeline.lit[event.line] = active
          case .released:
            changed = true
            timeline.lit[event.line] = false
          }
          index += 1
        }
        guard changed, inFirstPeriod || final else { continue }
        let lit = zip(names, keys).map { (name: $0, on: timeline.lit[$1] == true) }
        let seconds = dataClock.dataSeconds(clockMilliseconds: instant)
        frames.append(LEDFrame(seconds: seconds, lit: lit, text: Self.text(seconds, lit)))
      }
      if !timeline.announced, timeline.periodic, now >= timeline.startMilliseconds + timeline.periodMilliseconds {
        timeline.announced = true
        repeatNote = .ledsRepeat(
          state: timeline.state, periodMilliseconds: Int(timeline.periodMilliseconds),
          sinceSeconds: dataClock.dataSeconds(clockMilliseconds: timeline.startMilliseconds))
      }
    }
    for frame in frames { emit(.leds(frame)) }
    if let repeatNote { emit(repeatNote) }
  }

  /// `"  61.250 s  red ○  green ●  blue ○"`, the layout of `LEDTimeline`.
  static func text(_ dataSeconds: Double, _ lit: [(name: String, on: Bool)]) -> String {
    let seconds = dataSeconds.formatted(decimals: 3)
    let time = String(repeating: " ", count: max(0, 8 - seconds.count)) + seconds + " s"
    return time + "  " + lit.map { "\($0.name) \($0.on ? "●" : "○")" }.joined(separator: "  ")
  }
}
