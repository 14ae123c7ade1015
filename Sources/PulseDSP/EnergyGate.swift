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
  /// stride − 1: a working index is a gate sample when `index & strideMask == 0`; log2(stride).
  let strideMask: Int64
  let strideShift: Int64
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
  /// The shape of recent good pulses (PulseTemplate.swift), from the baseline-removed samples kept beside the
  /// squares.
  var template: PulseTemplate
  /// Where the last matched window starts in the buffer, and how many of its first points repeat that one.
  private var windowStart = 0
  private var windowSkip = 0
  /// r² × 256 of the last match computed (0...256), −1 when none was since `forgetShape`.
  private(set) var lastShapeQ8: Int16 = -1
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
    strideShift = stride == 2 ? 1 : 0
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
    template = PulseTemplate(gateRateHz: rate)
    ring = EnergyRing(capacity: beatWindow, templateLength: template.length)
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
    let centred = value &- baseline
    let clipped = min(max(0, centred) &>> scaleShift, 1 << 20)
    let z = clipped &* clipped
    let squares = ring.storage
    peakSum &+= z &- squares[tail]
    beatSum &+= z &- squares[head]
    squares[head] = z
    ring.values[head] = centred
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

  /// How the window around the working index `peak` matches the template, the current working index being
  /// `now` (the last gate sample is at or before it): 2 when Pearson's r ≥ `matchQ8` / 256 (or while there is
  /// no template yet), 1 when r ≥ `floorQ8` / 256 only, 0 below, −1 when the window is not wholly in the buffer.
  /// The window never reaches back more than `reach` working samples (half the expected interval: a fast
  /// heart's previous beat is no part of this one's shape); points before that repeat the first one in reach.
  /// Remembers the window for `learnWindow`, and r² as `lastShapeQ8`.
  mutating func likeness(peak: Int64, now: Int64, reach: Int64, matchQ8: Int64, floorQ8: Int64) -> Int {
    let lastGate = now & ~strideMask
    let centre = (peak &+ stride &>> 1) & ~strideMask
    let back = Int(truncatingIfNeeded: (lastGate &- centre) &>> strideShift)
    guard back >= template.afterSpan, back &+ template.beforeSpan < beatWindow else { return -1 }
    let step = template.step
    var i = head &- 1 &- back &- template.beforeSpan
    if i < 0 { i &+= beatWindow }
    var skip = 0
    if reach < Int64(template.beforeSpan) &<< strideShift {
      skip = template.before &- Int(truncatingIfNeeded: reach &>> strideShift) / step
      i &+= skip &* step
      if i >= beatWindow { i &-= beatWindow }
    }
    windowStart = i
    windowSkip = skip
    guard template.isReady else { return 2 }
    // Points scaled to the pulse (the squares' scale): about 2^12 for a pulse; a burst a thousand times larger
    // still sums far below 2^63.
    let shift = scaleShift &+ 4
    let values = ring.values, t = ring.template
    var sx: Int64 = 0, sxx: Int64 = 0, sxt: Int64 = 0
    if skip > 0 {
      let x = values[i] &>> shift
      var lead: Int64 = 0
      for k in 0..<skip { lead &+= t[k] }
      sx = Int64(skip) &* x
      sxx = sx &* x
      sxt = lead &* x
    }
    for k in skip..<template.length {
      let x = values[i] &>> shift
      sx &+= x
      sxx &+= x &* x
      sxt &+= x &* t[k]
      i &+= step
      if i >= beatWindow { i &-= beatWindow }
    }
    guard sxt > 0 else {
      lastShapeQ8 = 0
      return 0
    }
    // r² = (Σxt)² / (Σ(x − x̄)² Σt²); the template's mean is zero, Σ(x − x̄)² = Σx² − (Σx)²/n. Once per
    // candidate, in Double.
    let c = Double(sxt)
    let spread = (Double(sxx) - Double(sx) * Double(sx) / Double(template.length)) * Double(template.energy)
    let squared = c * c * 65_536
    lastShapeQ8 = spread > 0 ? Int16(min(256, squared / spread / 256)) : -1
    if squared >= Double(matchQ8 &* matchQ8) * spread { return 2 }
    return squared >= Double(floorQ8 &* floorQ8) * spread ? 1 : 0
  }

  /// A new candidate is being judged: no match of it computed yet.
  mutating func forgetShape() { lastShapeQ8 = -1 }

  /// Adds the window of the last `likeness` to the template.
  mutating func learnWindow() {
    makeUnique()
    var i = windowStart
    let w = ring.window
    for k in 0..<template.length {
      w[k] = ring.values[i]
      if k >= windowSkip {
        i += template.step
        if i >= beatWindow { i -= beatWindow }
      }
    }
    template.learn(w, into: ring.template)
  }

  mutating func resetTemplate() { template.reset() }

  mutating func reset() {
    makeUnique()
    for i in 0..<beatWindow { ring.storage[i] = 0 }
    for i in 0..<beatWindow { ring.values[i] = 0 }
    template.reset()
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
  let templateLength: Int
  /// One allocation: the squares, the baseline-removed samples (both `capacity`), the pulse template and a
  /// scratch window (both `templateLength`).
  let storage: UnsafeMutablePointer<Int64>
  let values: UnsafeMutablePointer<Int64>
  let template: UnsafeMutablePointer<Int64>
  let window: UnsafeMutablePointer<Int64>
  private var total: Int { 2 * capacity + 2 * templateLength }

  init(capacity: Int, templateLength: Int) {
    self.capacity = capacity
    self.templateLength = templateLength
    let total = 2 * capacity + 2 * templateLength
    storage = .allocate(capacity: total)
    storage.initialize(repeating: 0, count: total)
    values = storage + capacity
    template = values + capacity
    window = template + templateLength
  }

  func copy() -> EnergyRing {
    let other = EnergyRing(capacity: capacity, templateLength: templateLength)
    other.storage.update(from: storage, count: total)
    return other
  }

  deinit {
    storage.deallocate()
  }
}
