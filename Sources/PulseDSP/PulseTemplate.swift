/// The shape of the last good pulses, and how well a candidate matches it.
///
/// The energy gate keeps the last W2 of its baseline-removed band-passed samples beside their squares. When a
/// candidate is decided (its merge window closed, ~150 ms after its peak), eight of those samples, from
/// `templateBeforeSeconds` ahead of its peak to `templateAfterSeconds` past it — the systolic upstroke, the peak
/// and the start of the downstroke — are compared with a running average of the same windows of beats that
/// continued the rhythm: Pearson's r, once per candidate, never per sample. A real beat, early or late, has
/// the pulse's upstroke; a noise or motion peak that passed the amplitude, slope and energy rules mostly has
/// not.
///
/// No allocation after set-up (the template lives in the gate's buffer), no division per point: the template
/// is kept zero-mean with its own sum of squares, so r needs only Σx, Σx² and Σx·t of the window; the final
/// comparison is in Double, once per candidate.
struct PulseTemplate: Sendable {
  /// Points before and after the peak, the window's length, and the gate samples between points (~60 ms).
  let before: Int
  let after: Int
  let length: Int
  let step: Int
  /// Gate samples from the first point to the peak, and from the peak to the last.
  let beforeSpan: Int
  let afterSpan: Int
  /// Beats averaged so far (capped), the number needed before the template judges anything, and Σt².
  private(set) var count = 0
  private(set) var energy: Int64 = 0
  static let ready = 4

  init(gateRateHz rate: Double) {
    step = max(1, Int((BeatDetectorTuning.templatePointSpacingSeconds * rate).rounded()))
    let pointRate = rate / Double(step)
    before = max(2, Int((BeatDetectorTuning.templateBeforeSeconds * pointRate).rounded()))
    after = max(1, Int((BeatDetectorTuning.templateAfterSeconds * pointRate).rounded()))
    length = before + 1 + after
    beforeSpan = before * step
    afterSpan = after * step
  }

  /// Beats offered since the template last learnt: once ready, it learns from every `learnEvery`-th good beat
  /// (the shape changes over tens of beats; this keeps the cost per beat small).
  private var offered = 0
  static let learnEvery = 4

  var isReady: Bool { count >= PulseTemplate.ready }

  mutating func reset() {
    count = 0
    offered = 0
  }

  /// Whether to learn from the good beat just matched.
  mutating func wantsBeat() -> Bool {
    guard isReady else { return true }
    offered += 1
    guard offered >= PulseTemplate.learnEvery else { return false }
    offered = 0
    return true
  }

  /// Adds a window to the template: made zero-mean and scaled by a power of two to a range of 2^11-2^12, then
  /// about the mean of the first beats, and an exponential average (weight 1/4) after. `w` is scratch of `length`.
  mutating func learn(_ w: UnsafeMutablePointer<Int64>, into t: UnsafeMutablePointer<Int64>) {
    var sum: Int64 = 0
    var low = Int64.max, high = Int64.min
    for i in 0..<length {
      sum &+= w[i]
      low = min(low, w[i])
      high = max(high, w[i])
    }
    let range = high &- low
    guard range > 0 else { return }
    let mean = sum / Int64(length)
    let shift = Int64(64 - range.leadingZeroBitCount) - 12
    count = min(count + 1, 64)
    let weightShift: Int64 = count == 1 ? 0 : count == 2 ? 1 : 2
    var total: Int64 = 0
    for i in 0..<length {
      let d = w[i] &- mean
      let x = shift >= 0 ? d &>> shift : d &<< -shift
      t[i] &+= (x &- t[i]) &>> weightShift
      total &+= t[i]
    }
    // Keep the template zero-mean (rounding drifts it), and its energy for the correlation.
    let drift = total / Int64(length)
    energy = 0
    for i in 0..<length {
      t[i] &-= drift
      energy &+= t[i] &* t[i]
    }
  }
}
