import Config
import Sensors
import Signals
import TestSupport

/// A MAX30102 emulator fed with a real recording (`bsn_bvp_rest`, PLUX BVP at 1000 Hz), on a virtual clock,
/// behind an emulated bus, and the driver under test on top.
struct EmulatorFixture {
  let clock: VirtualClock
  let emulator: MAX30102Emulator
  let bus: EmulatedI2CBus
  let driver: MAX30102Driver

  /// Nanoseconds per millisecond, for readable waits.
  static let ms: Int64 = 1_000_000

  init(
    configuration: MAX30102Configuration = MAX30102Configuration(),
    options: MAX30102Emulator.Options = Self.loggingOptions(),
    bus: EmulatedI2CBus = EmulatedI2CBus()
  ) throws {
    clock = VirtualClock(start: 1_000 * Self.ms)
    emulator = MAX30102Emulator(waveform: try Self.waveform(), clock: clock, options: options)
    self.bus = bus
    bus.attach(emulator, at: MAX30102Bits.address)
    driver = MAX30102Driver(bus: bus, configuration: configuration, clock: clock)
  }

  static func loggingOptions() -> MAX30102Emulator.Options {
    var options = MAX30102Emulator.Options()
    options.logsSamples = true
    return options
  }

  static func waveform() throws -> PulseWaveform {
    try PulseWaveform(recordingAt: try SharedData.path("bsn_bvp_rest.csv"))
  }

  /// Advances the clock by `wait` and reads the FIFO.
  func poll(after wait: Int64) throws -> [PulseBlock] {
    clock.advance(by: wait)
    return try driver.readFIFO()
  }

  /// Polls with the given waits, cycling through them, for `total` nanoseconds of virtual time.
  func run(for total: Int64, waits: [Int64]) throws -> [PulseBlock] {
    var blocks: [PulseBlock] = []
    var elapsed: Int64 = 0
    var i = 0
    while elapsed < total {
      let wait = waits[i % waits.count]
      blocks += try poll(after: wait)
      elapsed += wait
      i += 1
    }
    return blocks
  }

  /// The emulator's pushed samples by timeline index.
  var logByIndex: [Int: MAX30102Emulator.Sample] {
    Dictionary(uniqueKeysWithValues: emulator.log.map { ($0.index, $0) })
  }
}

/// Every sample of `blocks` as (timeline index, ir, red).
func flatten(_ blocks: [PulseBlock]) -> [(index: Int, ir: Int32, red: Int32)] {
  blocks.flatMap { block in
    (0..<block.count).map { (block.firstSampleIndex + $0, block.ir[$0], block.red.isEmpty ? 0 : block.red[$0]) }
  }
}

/// Beats per minute from the strongest autocorrelation peak between 40 and 180 bpm, after removing a 1 s
/// moving average (a simple pulse-rate estimate for checking that a signal carries the recording's pulse).
func pulseRate(_ samples: [Double], sampleRate: Double) -> Double {
  let window = max(1, Int(sampleRate))
  var detrended: [Double] = []
  var sum = samples.prefix(window).reduce(0, +)
  for i in window..<samples.count {
    detrended.append(samples[i] - sum / Double(window))
    sum += samples[i] - samples[i - window]
  }
  let shortest = Int(sampleRate * 60 / 180)
  let longest = Int(sampleRate * 60 / 40)
  var bestLag = shortest
  var best = -Double.infinity
  for lag in shortest...longest {
    var acc = 0.0
    for i in 0..<(detrended.count - lag) { acc += detrended[i] * detrended[i + lag] }
    let normalised = acc / Double(detrended.count - lag)
    if normalised > best {
      best = normalised
      bestLag = lag
    }
  }
  return 60 * sampleRate / Double(bestLag)
}
