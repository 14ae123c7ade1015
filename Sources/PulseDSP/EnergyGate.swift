/// Elgendi et al. 2013's "blocks of interest", streaming: a systolic peak sits where the band-passed pulse,
/// clipped at zero and squared, averages more over a peak's width (W1 = 111 ms) than over a beat (W2 = 667 ms)
/// plus a small offset (β = 0.02 of its long-term mean). Noise wiggles in diastole, on the downstroke or at the
/// foot carry little energy and stay outside the blocks; that is what lets Elgendi's detector keep its F1 on
/// low-perfusion, noisy pulses. Here the blocks only gate candidates: a beat must lie in one.
///
/// Two departures from the paper, both forced by streaming: Elgendi centres both averages on the peak; here the
/// beat average covers the W2 samples up to the moment the candidate is decided (its merge window closed,
/// ~150 ms after the peak), and the signal has a W2 running mean taken off before clipping (the paper's
/// zero-phase 0.5 Hz band-pass removes a respiratory swing of the baseline; the detector's first-order causal
/// one leaves enough of it to push whole pulses below zero).
///
/// Integer only. The squared signal is scaled by a power of two (`scaleShift`) chosen from the pulse amplitude,
/// so that it stays below 2^40 whatever the sensor's units: sums of ≤ 2^8 of them stay below 2^48 and the
/// comparison's products below 2^57. The rings (W2 values, W2 squares, 64 peak-window sums) are allocated once.
struct EnergyGate: Sendable {
  let peakWindow: Int
  let beatWindow: Int
  private var ring: [Int64]
  /// The band-passed values of the last W2 samples and their sum: a beat-long mean subtracted before clipping
  /// (a respiratory swing of the baseline, which the 0.5 Hz first-order high-pass leaves in, would otherwise
  /// push whole pulses below zero).
  private var values: [Int64]
  private var valueSum: Int64 = 0
  private var head = 0
  private var filled = 0
  private var peakSum: Int64 = 0
  private var beatSum: Int64 = 0
  /// Long-term mean of the squared signal (exponential, time constant 2^meanShift samples).
  private var mean: Int64 = 0
  private let meanShift: Int64
  private(set) var scaleShift: Int64 = 0
  /// The peak-window sum of the last 64 working samples (slot = sample count mod 64).
  private var peakHistory = [Int64](repeating: 0, count: 64)
  private var steps: Int64 = 0
  let offsetQ8: Int64

  init(workingRateHz rate: Double) {
    peakWindow = max(1, Int((BeatDetectorTuning.energyPeakWindowSeconds * rate).rounded()))
    beatWindow = max(peakWindow + 1, Int((BeatDetectorTuning.energyBeatWindowSeconds * rate).rounded()))
    ring = [Int64](repeating: 0, count: beatWindow)
    values = [Int64](repeating: 0, count: beatWindow)
    var shift: Int64 = 0
    while Double(1 << shift) < BeatDetectorTuning.energyMeanSeconds * rate { shift += 1 }
    meanShift = shift
    offsetQ8 = Int64((BeatDetectorTuning.energyOffset * 256).rounded())
  }

  /// One band-passed working sample.
  @inline(__always)
  mutating func step(_ input: Int64) {
    valueSum &+= input &- values[head]
    values[head] = input
    let value = filled >= beatWindow ? input &- valueSum / Int64(beatWindow) : input
    let clipped = min(max(0, value) >> scaleShift, 1 << 20)
    let z = clipped &* clipped
    // The value leaving the peak window is W1 samples back, still in the ring.
    var leaving = head &- peakWindow
    if leaving < 0 { leaving &+= beatWindow }
    let oldest = ring[head]
    peakSum &+= z &- (filled >= peakWindow ? ring[leaving] : 0)
    beatSum &+= z &- oldest
    ring[head] = z
    head &+= 1
    if head == beatWindow { head = 0 }
    if filled < beatWindow { filled &+= 1 }
    mean &+= (z &- mean) >> meanShift
    peakHistory[Int(steps & 63)] = peakSum
    steps &+= 1
  }

  /// The peak-window sum `samplesAgo` working samples ago (0 = the last sample); nil beyond the history.
  func peakEnergy(samplesAgo: Int64) -> Int64? {
    guard samplesAgo >= 0, samplesAgo < 64, samplesAgo < steps else { return nil }
    return peakHistory[Int((steps &- 1 &- samplesAgo) & 63)]
  }

  /// Whether a peak whose W1 sum was `peakEnergy` stands above the current W2 average plus the offset:
  /// MA1 > MA2 + β·mean ⇔ peakEnergy · W2 > beatSum · W1 + β · mean · W1 · W2 (all below 2^57). Open while the
  /// beat window is still filling.
  func stands(peakEnergy: Int64) -> Bool {
    guard filled >= beatWindow else { return true }
    let w1 = Int64(peakWindow), w2 = Int64(beatWindow)
    return peakEnergy &* w2 > beatSum &* w1 &+ ((offsetQ8 &* mean) >> 8) &* w1 &* w2
  }

  /// Sets the scale so that a pulse of `amplitude` (Q8 input units) squares to about 2^32; rescales what the
  /// ring holds when it changes.
  mutating func setScale(forAmplitude amplitude: Int64) {
    let width = Int64(64 - max(1, amplitude).leadingZeroBitCount)
    let wanted = max(0, width - 16)
    guard wanted != scaleShift else { return }
    let change = wanted - scaleShift
    scaleShift = wanted
    for i in 0..<beatWindow { ring[i] = change > 0 ? ring[i] >> (2 * change) : min(ring[i] << (-2 * change), 1 << 40) }
    mean = change > 0 ? mean >> (2 * change) : min(mean << (-2 * change), 1 << 40)
    recomputeSums()
  }

  mutating func reset() {
    for i in 0..<beatWindow { ring[i] = 0; values[i] = 0 }
    valueSum = 0
    head = 0
    filled = 0
    peakSum = 0
    beatSum = 0
    mean = 0
    steps = 0
  }

  private mutating func recomputeSums() {
    beatSum = 0
    for value in ring { beatSum &+= value }
    peakSum = 0
    for k in 1...peakWindow {
      var i = head - k
      if i < 0 { i += beatWindow }
      peakSum &+= ring[i]
    }
  }
}
