import Logging

/// A MAX3010x as a `PulseSource`: polls the FIFO once or a few times per FIFO length, hands out the samples as
/// blocks, and runs the automatic LED current control and the no-finger check on them.
public actor MAX30102Source: PulseSource {
  // MARK: - Properties

  public nonisolated let info: PulseSourceInfo
  private let driver: MAX30102Driver
  private let clock: any SensorClock
  private var controller: LEDCurrentController
  private var queue: [PulseBlock] = []
  private var started = false
  private var stopped = false
  private var levelStep = false
  private var nextPoll: Int64 = 0
  private let logger = Logger(label: "stressmon.sensors")

  /// How often the FIFO is read.
  public nonisolated let polling: FIFOPolling

  /// Poll interval in nanoseconds: `.prompt`, a quarter of the FIFO's 32 samples, so that a late wake-up of a
  /// whole interval still leaves room, and never longer than 100 ms (blocks reach the detector promptly);
  /// `.sparse`, three quarters of it (240 ms at 100 samples/s), a quarter left for a late wake-up.
  public nonisolated var pollInterval: Int64 {
    let fifo = Double(MAX30102Bits.fifoDepth) / info.sampleRateHz * 1e9
    switch polling {
    case .prompt: return min(100_000_000, Int64(fifo / 4))
    case .sparse: return Int64(fifo * 3 / 4)
    }
  }

  // MARK: - Initialization

  /// `kind` names the source in `info` ("max30102", "emulated max30102").
  public init(
    bus: sending any I2CBus, configuration: MAX30102Configuration, clock: any SensorClock,
    kind: String? = nil, polling: FIFOPolling = .prompt
  ) {
    driver = MAX30102Driver(bus: bus, configuration: configuration, clock: clock)
    self.clock = clock
    self.polling = polling
    controller = LEDCurrentController(sampleRateHz: configuration.effectiveSampleRateHz)
    var channels = ["ir", "red"]
    if configuration.leds == 3 { channels.append("green") }
    info = PulseSourceInfo(
      kind: kind ?? configuration.part.rawValue, sampleRateHz: configuration.effectiveSampleRateHz,
      polarity: .inverted, channels: channels, fullScale: MAX30102Bits.fullScale, settings: configuration.summary)
  }

  // MARK: - PulseSource

  public func start() async throws(SensorError) {
    guard !started || stopped else { return }
    try await driver.start()
    started = true
    stopped = false
    nextPoll = clock.now() + pollInterval
  }

  public func nextBlock() async throws(SensorError) -> PulseBlock? {
    guard !stopped else { return nil }
    if !started { try await start() }
    while queue.isEmpty {
      guard !stopped else { return nil }
      do { try await clock.sleep(until: nextPoll) } catch { return nil }
      nextPoll = max(nextPoll + pollInterval, clock.now())
      queue = try driver.readFIFO()
    }
    var block = queue.removeFirst()
    block.levelStepBefore = levelStep
    levelStep = false
    if driver.configuration.automaticLEDCurrent {
      let current = (driver.redCurrent, driver.irCurrent, driver.greenCurrent)
      if let next = controller.update(with: block, current: current) {
        try driver.setLEDCurrents(red: next.red, ir: next.ir, green: next.green)
        levelStep = true
        logger.info("led current changed", metadata: [
          "red_ma": "\(Double(next.red) * 0.2)", "ir_ma": "\(Double(next.ir) * 0.2)"])
      }
    } else {
      _ = controller.update(with: block, current: (driver.redCurrent, driver.irCurrent, driver.greenCurrent))
    }
    block.contact = controller.contact
    return block
  }

  public func stop() async {
    guard started, !stopped else { return }
    stopped = true
    queue.removeAll()
    do { try driver.shutdown() } catch { logger.warning("max3010x shutdown failed", metadata: ["error": "\(error)"]) }
  }

  // MARK: - Public

  /// LED currents now set, in mA (red, IR, green).
  public var ledCurrentsMilliamps: (red: Double, ir: Double, green: Double) {
    (Double(driver.redCurrent) * 0.2, Double(driver.irCurrent) * 0.2, Double(driver.greenCurrent) * 0.2)
  }

  /// Die temperature in °C.
  public func temperature() async throws(SensorError) -> Double { try await driver.readTemperature() }
}

/// How often a MAX3010x source reads its 32-sample FIFO.
public enum FIFOPolling: String, Sendable, Equatable {
  /// Every quarter of the FIFO, at most 100 ms apart: blocks reach the detector promptly (desk, `record`).
  case prompt
  /// Every three quarters of the FIFO (240 ms at 100 samples/s): the fewest wake-ups that still leave a quarter of
  /// the FIFO for a late one (wearable, on a battery).
  case sparse
}
