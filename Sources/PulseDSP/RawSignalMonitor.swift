/// Watches the raw input, half a second at a time, for the two states no filter can see through: a flat or
/// dark channel (no contact) and an ADC pinned at a rail (saturated).
///
/// Per sample it keeps the block's minimum and maximum and the length of the current run of identical
/// values. A block is saturated when the signal is pinned at a rail for `pinRun` samples, and clipped when
/// it sits at a rail for `clipRun` samples on the side the systolic peaks point to (top for normal polarity,
/// bottom for raw intensity): clipped peaks lose precision. Clipped troughs do not hurt beat times.
/// Integer only.
struct RawSignalMonitor: Sendable {
  /// What a finished block looked like.
  enum BlockState: Sendable, Equatable {
    case usable, flat, dark, saturated, clipped
  }

  /// Half a second: short enough to react within a beat, long enough that a real pulse always spans more
  /// than the flat threshold inside it.
  static let blockSeconds = 0.5
  /// A run of identical samples this long at a rail on the peaks' side clips the peak: 50 ms and at least 4
  /// samples (an 8-bit oximeter repeats a value for 2-3 samples at its peaks).
  static let clipRunSeconds = 0.05
  /// A run this long at any rail is saturation whichever side it is on.
  static let pinRunSeconds = 0.25
  /// Common ADC widths: 0 and 2^k − 1 for these k are rails under `.powerOfTwo` (odd widths are rare, and
  /// 2^9 − 1 = 511 is mid-scale for a 10-bit ADC); plus the signed 16- and 24-bit extremes.
  static let railBits: [Int32] = [8, 10, 12, 14, 16, 18, 20, 22, 24]

  let blockLength: Int
  let clipRun: Int
  let pinRun: Int
  let peaksPointDown: Bool
  let flatThreshold: Int64
  let noContactBelow: Int64?
  let rails: BeatDetectorConfiguration.Rails

  private var remaining: Int
  private var blockSum: Int64 = 0
  /// Mean of the last finished block (raw units).
  private(set) var lastMean: Int64 = 0
  private var blockMin = Int32.max
  private var blockMax = Int32.min
  /// The last sample (the current run's value).
  var lastSample: Int32 { runValue }
  private var runValue: Int32 = 0
  private var runLength = 0
  private var railTop = Int32.min
  private var railBottom = Int32.max
  private var pinned = false

  init(configuration: BeatDetectorConfiguration) {
    blockLength = max(1, Int((configuration.sampleRateHz * Self.blockSeconds).rounded()))
    clipRun = max(4, Int((configuration.sampleRateHz * Self.clipRunSeconds).rounded()))
    pinRun = max(clipRun, Int((configuration.sampleRateHz * Self.pinRunSeconds).rounded()))
    peaksPointDown = configuration.polarity == .inverted
    flatThreshold = Int64(configuration.flatThreshold)
    noContactBelow = configuration.noContactBelow.map(Int64.init)
    rails = configuration.rails
    remaining = blockLength
  }

  /// Observes one raw sample; returns the block's state when this sample completed a block, else nil.
  @inline(__always)
  mutating func observe(_ sample: Int32) -> BlockState? {
    blockSum &+= Int64(sample)
    if sample < blockMin { blockMin = sample }
    if sample > blockMax { blockMax = sample }
    if sample == runValue {
      runLength &+= 1
      if runLength == clipRun || runLength == pinRun { noteRun(sample) }
    } else {
      runValue = sample
      runLength = 1
    }
    remaining &-= 1
    if remaining != 0 { return nil }
    return finishBlock()
  }

  /// Starts a new block (after a gap: the run and the extremes must not span it).
  mutating func reset() {
    remaining = blockLength
    blockSum = 0
    blockMin = .max
    blockMax = .min
    runLength = 0
    runValue = 0
    clearRails()
  }

  // MARK: - Private

  private mutating func finishBlock() -> BlockState {
    let span = Int64(blockMax) - Int64(blockMin)
    lastMean = blockSum / Int64(blockLength)
    blockSum = 0
    let state: BlockState
    let clipped = peaksPointDown ? railBottom == blockMin : railTop == blockMax
    if span <= flatThreshold {
      // Pinned at a non-zero rail is too much light (saturated); pinned at zero or anywhere else is nothing
      // to measure (a dropout, a dark or unplugged channel).
      state = pinned && blockMax != 0 ? .saturated : .flat
    } else if pinned {
      state = .saturated
    } else if clipped {
      state = .clipped
    } else if let dark = noContactBelow, Int64(blockMax) < dark {
      state = .dark
    } else {
      state = .usable
    }
    remaining = blockLength
    blockMin = .max
    blockMax = .min
    clearRails()
    return state
  }

  private mutating func noteRun(_ value: Int32) {
    guard isRail(value) else { return }
    if runLength >= pinRun { pinned = true }
    if value > railTop { railTop = value }
    if value < railBottom { railBottom = value }
  }

  private mutating func clearRails() {
    railTop = .min
    railBottom = .max
    pinned = false
  }

  private func isRail(_ value: Int32) -> Bool {
    switch rails {
    case .none:
      return false
    case .range(let low, let high):
      return value <= low || value >= high
    case .powerOfTwo:
      if value == 0 || value == Int32(Int16.max) || value == Int32(Int16.min) { return true }
      if value == 8_388_607 || value == -8_388_608 { return true }
      return Self.railBits.contains { value == (1 << $0) &- 1 }
    }
  }
}
