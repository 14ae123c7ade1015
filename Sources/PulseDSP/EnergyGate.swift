/// Elgendi et al. 2013's "blocks of interest", streaming: a systolic peak sits where the band-passed pulse,
/// clipped at zero and squared, averages more over a peak's width (W1 = 111 ms) than over a beat (W2 = 667 ms)
/// plus a small offset (β = 0.02 of its long-term mean). Noise wiggles in diastole, on the downstroke or at the
/// foot carry little energy and stay outside the blocks; that is what keeps Elgendi's detector's F1 on
/// low-perfusion, noisy pulses. Here the blocks only gate candidates: a beat must lie in one.
///
/// Departures from the paper, forced by streaming:
/// - the peak's energy is the largest W1 average from its rise to the moment it is decided (its merge window
///   closed, ~150 ms after the peak); the beat average is the last W2 at that moment (Elgendi centres both);
/// - a running mean of the band-passed signal (exponential, time constant ~W2 / 2) is taken off before clipping:
///   Elgendi's zero-phase 0.5 Hz band-pass removes a respiratory swing of the baseline, the detector's
///   first-order causal one leaves enough of it to push whole pulses below zero.
///
/// Integer only. The squared signal is scaled by a power of two (`scaleShift`) chosen from the pulse amplitude,
/// so that it stays below 2^40 whatever the sensor's units: W2 of them sum below 2^48, the comparison's products
/// stay below 2^57. The W2 squares live in one buffer allocated at set-up (`EnergyRing`), written through a
/// pointer: the detector makes it unique once per `process` call, not per sample.
struct EnergyGate: Sendable {
  /// The gate sees every `stride`-th working sample: 2 from a 64 Hz working rate up (averages over 111 ms and
  /// 667 ms need no more than 32 Hz; the squared pulse, up to 16 Hz, stays about below its Nyquist rate), else
  /// 1. Windows are counted in its own samples. It halves the gate's cost per input sample.
  let stride: Int64
  /// stride − 1: a working index is a gate sample when `index & strideMask == 0`.
  let strideMask: Int64
  let peakWindow: Int
  let beatWindow: Int
  /// W1 / 2 in working samples: the peak-window sum is centred on the sample this long before it.
  let centreDelay: Int64
  /// Shift of the baseline's exponential average, and of the long-term mean's.
  let baselineShift: Int64
  let meanShift: Int64
  /// β in Q8.
  let offsetQ8: Int64
  private(set) var scaleShift: Int64 = 0
  private var ring: EnergyRing
  /// Where the next square goes, and where the one leaving the peak window is (W1 behind).
  private var head = 0
  private var tail = 0
  private var baseline: Int64 = 0
  /// Sum of the last W1 and of the last W2 squares, and the long-term mean of the squares.
  private(set) var peakSum: Int64 = 0
  private var beatSum: Int64 = 0
  private var mean: Int64 = 0

  init(workingRateHz workingRate: Double) {
    stride = workingRate >= 64 ? 2 : 1
    strideMask = stride - 1
    let rate = workingRate / Double(stride)
    func shift(forSamples samples: Double) -> Int64 {
      var k: Int64 = 0
      while Double(1 << (k + 1)) <= samples { k += 1 }
      return k
    }
    peakWindow = max(1, Int((BeatDetectorTuning.energyPeakWindowSeconds * rate).rounded()))
    beatWindow = max(peakWindow + 1, Int((BeatDetectorTuning.energyBeatWindowSeconds * rate).rounded()))
    centreDelay = Int64(peakWindow / 2) * stride
    baselineShift = shift(forSamples: BeatDetectorTuning.energyBeatWindowSeconds * rate / 2)
    meanShift = shift(forSamples: BeatDetectorTuning.energyMeanSeconds * rate)
    offsetQ8 = Int64((BeatDetectorTuning.energyOffset * 256).rounded())
    ring = EnergyRing(capacity: beatWindow)
    tail = beatWindow - peakWindow
  }

  /// Gives this gate its own buffer if a copy of the detector shares it (call before stepping).
  @inline(__always)
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&ring) { ring = ring.copy() }
  }

  /// One band-passed working sample (|value| < 2^42), every `stride` working samples. `makeUnique()` must have
  /// run since the gate was copied.
  @inline(__always)
  mutating func step(_ value: Int64) {
    // Masking shifts (`&>>`): the amounts are set-up constants in 0...63, and a plain `>>` by a variable
    // compiles to a dozen compares for shift amounts outside that range.
    baseline &+= (value &- baseline) &>> baselineShift
    let clipped = min(max(0, value &- baseline) &>> scaleShift, 1 << 20)
    let z = clipped &* clipped
    let squares = ring.storage
    peakSum &+= z &- squares[tail]
    beatSum &+= z &- squares[head]
    squares[head] = z
    head &+= 1
    if head == beatWindow { head = 0 }
    tail &+= 1
    if tail == beatWindow { tail = 0 }
    mean &+= (z &- mean) &>> meanShift
  }

  /// Whether a peak whose W1 sum was `peakEnergy` stands above the current W2 average plus the offset:
  /// MA1 > MA2 + β·mean ⇔ peakEnergy · W2 > beatSum · W1 + β · mean · W1 · W2. (While the beat window is still
  /// filling after a reset, its zeros make the test easier, not harder: the settling time covers most of it.)
  @inline(__always)
  func stands(peakEnergy: Int64) -> Bool {
    let w1 = Int64(peakWindow), w2 = Int64(beatWindow)
    return peakEnergy &* w2 > beatSum &* w1 &+ ((offsetQ8 &* mean) &>> 8) &* w1 &* w2
  }

  /// Sets the scale so that a pulse of `amplitude` (Q8 input units) squares to about 2^32; rescales what the
  /// buffer holds when it changes (rare: the amplitude moves by a factor of two).
  mutating func setScale(forAmplitude amplitude: Int64) {
    let width = Int64(64 - max(1, amplitude).leadingZeroBitCount)
    let wanted = max(0, width - 16)
    guard wanted != scaleShift else { return }
    makeUnique()
    let change = wanted - scaleShift
    scaleShift = wanted
    func rescale(_ x: Int64) -> Int64 { change > 0 ? x >> (2 * change) : min(x << (-2 * change), 1 << 40) }
    let squares = ring.storage
    for i in 0..<beatWindow { squares[i] = rescale(squares[i]) }
    mean = rescale(mean)
    beatSum = 0
    for i in 0..<beatWindow { beatSum &+= squares[i] }
    peakSum = 0
    for k in 1...peakWindow {
      var i = head - k
      if i < 0 { i += beatWindow }
      peakSum &+= squares[i]
    }
  }

  mutating func reset() {
    makeUnique()
    for i in 0..<beatWindow { ring.storage[i] = 0 }
    head = 0
    tail = beatWindow - peakWindow
    baseline = 0
    peakSum = 0
    beatSum = 0
    mean = 0
  }
}

/// The energy gate's buffer: W2 squares, allocated once at set-up, freed with the last detector that holds it.
/// Copies of a detector share it until one of them processes samples (`EnergyGate.makeUnique`).
final class EnergyRing: @unchecked Sendable {
  let capacity: Int
  let storage: UnsafeMutablePointer<Int64>

  init(capacity: Int) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: 0, count: capacity)
  }

  func copy() -> EnergyRing {
    let other = EnergyRing(capacity: capacity)
    other.storage.update(from: storage, count: capacity)
    return other
  }

  deinit {
    storage.deallocate()
  }
}
