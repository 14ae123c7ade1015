/// An analog pulse sensor on an ADS1x15 as a `PulseSource`. The ADC converts continuously, faster than the
/// output rate; the host reads the latest conversion at each sampling instant of its own clock, so the sample
/// times are the host's. A wake-up later than a whole period skips instants: those become a gap, never stitched.
public actor ADS1115Source: PulseSource {
  public nonisolated let info: PulseSourceInfo
  private let driver: ADS1x15Driver
  private let clock: any SensorClock
  private let period: Int64
  private let blockSamples: Int
  private var nextInstant: Int64 = 0
  private var nextIndex = 0
  /// Instants skipped since the last sample handed out.
  private var pendingGap = 0
  private var started = false
  private var stopped = false

  public init(
    bus: sending any I2CBus, configuration: ADS1x15Configuration, clock: any SensorClock,
    kind: String? = nil
  ) {
    driver = ADS1x15Driver(bus: bus, configuration: configuration)
    self.clock = clock
    period = Int64((1e9 / configuration.outputRateHz).rounded())
    // About a tenth of a second per block.
    blockSamples = max(1, Int((configuration.outputRateHz / 10).rounded()))
    info = PulseSourceInfo(
      kind: kind ?? configuration.part.rawValue, sampleRateHz: configuration.outputRateHz, polarity: .normal,
      channels: ["ppg"], fullScale: 32767, settings: configuration.summary)
  }

  public func start() async throws(SensorError) {
    guard !started || stopped else { return }
    try driver.start()
    started = true
    stopped = false
    nextInstant = clock.now() + period
  }

  public func nextBlock() async throws(SensorError) -> PulseBlock? {
    guard !stopped else { return nil }
    if !started { try await start() }
    var samples: [Int32] = []
    samples.reserveCapacity(blockSamples)
    var gapBefore = 0
    var first = nextIndex
    while samples.count < blockSamples {
      do { try await clock.sleep(until: nextInstant) } catch { return nil }
      let late = clock.now() - nextInstant
      if late >= period {
        let missed = Int(late / period)
        nextInstant += Int64(missed) * period
        nextIndex += missed
        pendingGap += missed
        if !samples.isEmpty { break }  // the gap opens the next block
      }
      if samples.isEmpty {
        gapBefore = pendingGap
        pendingGap = 0
        first = nextIndex
      }
      samples.append(try driver.readConversion())
      nextInstant += period
      nextIndex += 1
    }
    return PulseBlock(gapBefore: gapBefore, firstSampleIndex: first, ir: samples)
  }

  public func stop() async {
    guard started, !stopped else { return }
    stopped = true
    try? driver.shutdown()
  }
}
