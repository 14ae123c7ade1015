import Platform
import Signals

/// Settings of the synthetic pulse: a MAX30102-like raw signal (counts, pulses down) with known beats.
public struct SyntheticPulseConfiguration: Sendable, Equatable {
  public var sampleRateHz = 100.0
  public var heartRateBpm = 65.0
  /// Standard deviation of the beat-to-beat intervals: half from respiratory sinus arrhythmia, half random.
  public var sdnnMilliseconds = 50.0
  public var respiratoryRateHz = 0.25
  public var seed: UInt64 = 1
  /// nil: endless.
  public var durationSeconds: Double?
  /// IR DC level in 18-bit counts (65 % of full scale) and pulse height over DC.
  public var dcCounts = 170_000.0
  public var perfusion = 0.015
  public var noiseCounts = 24.0

  public init() {}
}

/// The synthetic pulse as a deterministic function of the sample index: same settings, same samples. Beats are
/// systolic peaks; the wave is a two-Gaussian pulse (systolic peak and a smaller diastolic wave 0.3 s later), a
/// common shape for synthetic PPG, on a DC level breathing at the respiratory rate.
public struct SyntheticPulseModel: Sendable {
  public let configuration: SyntheticPulseConfiguration
  /// Systolic peak times in seconds, generated as far as asked.
  public private(set) var beatTimes: [Double] = []

  /// Gaussian widths and diastolic delay/height, in seconds and relative units.
  static let systolicWidth = 0.07
  static let diastolicDelay = 0.30
  static let diastolicWidth = 0.11
  static let diastolicHeight = 0.4

  public init(configuration: SyntheticPulseConfiguration) {
    self.configuration = configuration
  }

  /// Extends `beatTimes` to cover `seconds`.
  public mutating func generateBeats(through seconds: Double) {
    let meanInterval = 60 / configuration.heartRateBpm
    let sd = configuration.sdnnMilliseconds / 1000 / 2.0.squareRoot()
    var time = beatTimes.last ?? 0.3
    if beatTimes.isEmpty { beatTimes.append(time) }
    while time < seconds + 2 {
      let k = beatTimes.count
      let sinus = sin(2 * Double.pi * configuration.respiratoryRateHz * time)
      let interval = meanInterval + sd * 2.0.squareRoot() * sinus + sd * Self.gaussian(k, configuration.seed)
      time += max(0.25, interval)
      beatTimes.append(time)
    }
  }

  /// Sample `index` of (IR, red), in counts.
  public mutating func sample(_ index: Int) -> (ir: Int32, red: Int32) {
    let t = Double(index) / configuration.sampleRateHz
    generateBeats(through: t)
    var pulse = 0.0
    // Only beats within ±1 s can touch t.
    var low = 0
    var high = beatTimes.count
    while low < high {
      let mid = (low + high) / 2
      if beatTimes[mid] < t - 1 { low = mid + 1 } else { high = mid }
    }
    var i = low
    while i < beatTimes.count && beatTimes[i] < t + 1 {
      let dt = t - beatTimes[i]
      pulse += exp(-dt * dt / (2 * Self.systolicWidth * Self.systolicWidth))
      let dd = dt - Self.diastolicDelay
      pulse += Self.diastolicHeight * exp(-dd * dd / (2 * Self.diastolicWidth * Self.diastolicWidth))
      i += 1
    }
    let breathing = 1 + 0.003 * sin(2 * Double.pi * configuration.respiratoryRateHz * t)
    let dc = configuration.dcCounts * breathing
    let noise = configuration.noiseCounts
    let ir = dc * (1 - configuration.perfusion * pulse) + noise * DeterministicNoise.triangular(index, 11)
    let red = 0.8 * dc * (1 - 0.5 * configuration.perfusion * pulse) + noise * DeterministicNoise.triangular(index, 12)
    return (Int32(ir.rounded()), Int32(red.rounded()))
  }

  /// A standard normal deviate from the hash (Box-Muller).
  static func gaussian(_ index: Int, _ seed: UInt64) -> Double {
    let h = DeterministicNoise.hash(index, seed)
    let u1 = max(Double(h & 0xFFFF_FFFF) / Double(UInt32.max), 1e-12)
    let u2 = Double(h >> 32) / Double(UInt32.max)
    return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
  }
}

/// The synthetic pulse as a `PulseSource`, for demos and tests that need known beats.
public actor SyntheticPulseSource: PulseSource {
  public nonisolated let info: PulseSourceInfo
  private var model: SyntheticPulseModel
  private let pacing: Pacing
  private let clock: any SensorClock
  private let blockSamples: Int
  private var nextIndex = 0
  private var startTime: Int64?
  private var ended = false

  public init(
    configuration: SyntheticPulseConfiguration = SyntheticPulseConfiguration(), pacing: Pacing = .asFastAsPossible,
    clock: any SensorClock = SystemClock()
  ) {
    model = SyntheticPulseModel(configuration: configuration)
    self.pacing = pacing
    self.clock = clock
    blockSamples = max(1, Int((configuration.sampleRateHz / 10).rounded()))
    info = PulseSourceInfo(
      kind: "synthetic", sampleRateHz: configuration.sampleRateHz, polarity: .inverted, channels: ["ir", "red"],
      fullScale: MAX30102Bits.fullScale,
      settings: "synthetic pulse, \(format(configuration.heartRateBpm)) bpm, SDNN \(format(configuration.sdnnMilliseconds)) ms, "
        + "seed \(configuration.seed)")
  }

  /// Beat times (s) of the samples produced so far.
  public var beatTimes: [Double] {
    let end = Double(nextIndex) / info.sampleRateHz
    return model.beatTimes.filter { $0 < end }
  }

  public func start() async throws(SensorError) {
    if startTime == nil { startTime = clock.now() }
  }

  public func nextBlock() async throws(SensorError) -> PulseBlock? {
    guard !ended else { return nil }
    if startTime == nil { startTime = clock.now() }
    var count = blockSamples
    if let duration = model.configuration.durationSeconds {
      count = min(count, Int(duration * info.sampleRateHz) - nextIndex)
      guard count > 0 else {
        ended = true
        return nil
      }
    }
    var ir: [Int32] = []
    var red: [Int32] = []
    ir.reserveCapacity(count)
    red.reserveCapacity(count)
    for i in nextIndex..<(nextIndex + count) {
      let sample = model.sample(i)
      ir.append(sample.ir)
      red.append(sample.red)
    }
    let first = nextIndex
    nextIndex += count
    if pacing == .realtime, let startTime {
      do {
        try await clock.sleep(until: startTime + Int64(Double(nextIndex) / info.sampleRateHz * 1e9))
      } catch { return nil }
    }
    return PulseBlock(firstSampleIndex: first, ir: ir, red: red)
  }

  public func stop() async { ended = true }
}
