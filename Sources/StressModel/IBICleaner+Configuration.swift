/// The cleaner's thresholds: which intervals are plausible, and how far the time-varying thresholds d and D
/// (`IBICleaner`) may move and how close a pattern must come.
extension IBICleaner {
  public struct Configuration: Sendable, Equatable {
    /// Physiologically plausible intervals, ms (273 bpm to 24 bpm: a 190 bpm heart keeps a real RR series' swings
    /// of 25-30 % and reaches 250 bpm beat to beat, which the detector's 250 ms refractory period, rounded to whole
    /// samples, and a beat's refined time let through down to about 225 ms at 25 Hz; a 40 bpm heart with strong
    /// sinus arrhythmia reaches 2.2 s).
    public var plausibleMilliseconds: ClosedRange<Double>
    /// Intervals not yet judged clean set the reference only from this length up (200 bpm): below it, short
    /// intervals are more often parts of false beats in noise than a fast heart's own.
    public var referenceFloorMilliseconds: Double
    /// d = this × the robust spread of recent clean intervals around their references...
    public var spreadMultiplier: Double
    /// ...kept in this range (shares of the reference interval).
    public var deviationRange: ClosedRange<Double>
    /// D = this × the robust spread of successive differences of clean intervals...
    public var jumpMultiplier: Double
    /// ...kept in this range.
    public var jumpRange: ClosedRange<Double>
    /// How close a sum or ratio must come to its pattern (a + b ≈ 1 or 2, a ≈ 2), in reference intervals.
    public var patternTolerance: Double

    public init(
      plausibleMilliseconds: ClosedRange<Double> = 220...2500, spreadMultiplier: Double = 3,
      deviationRange: ClosedRange<Double> = 0.12...0.2, jumpMultiplier: Double = 4,
      jumpRange: ClosedRange<Double> = 0.25...0.4, patternTolerance: Double = 0.3,
      referenceFloorMilliseconds: Double = 300
    ) {
      self.plausibleMilliseconds = plausibleMilliseconds
      self.referenceFloorMilliseconds = referenceFloorMilliseconds
      self.spreadMultiplier = spreadMultiplier
      self.deviationRange = deviationRange
      self.jumpMultiplier = jumpMultiplier
      self.jumpRange = jumpRange
      self.patternTolerance = patternTolerance
    }
  }
}

/// What a beat's time, size and shape tell the cleaner, and how far a lone interval may swing: fixed, measured on the
/// evaluation set and the shared recordings (docs/detector.md).
extension IBICleaner {
  /// How long before a lost contact is found a beat may be the light's fall: the detector finds it from a
  /// half-second block whose mean fell, and a finger takes up to about half a second to leave.
  public static let contactEdgeSeconds = 1.0
  /// A beat this many times the median size of the last `sizeHistory` beats (those not outsized), and more than
  /// `outsizedOverLargest` times the largest of them, is motion: a pulse's size changes by tens of per cent from beat
  /// to beat, and with a deep breath up to about 4× the median (below), but from one beat to the next a breath does
  /// not double the largest recent beat; a movement of the finger moves the light many times more. Its time is not
  /// the pulse's either way.
  public static let outsizedRatio = 3.0
  /// ...and this many times the largest of them (see `outsizedRatio`).
  public static let outsizedOverLargest = 2.0
  /// A beat this many times the median is past anything breathing makes (a deep breath's baseline, which the
  /// band-pass only partly removes, swings a pulse's rise up to about 4×): a movement's largest swing. A movement
  /// starts before its largest swing, so the interval ending at the beat before is set aside too, unless a lost
  /// contact is found within `contactEdgeSeconds` of that beat (the light's fall, not a movement: `breakSegment`).
  public static let movementOnsetRatio = 4.0
  /// A beat under this share of that median is weak: a premature beat is (its ventricle had less time to fill), so
  /// a short interval ending at one may form a premature pair whose sum misses by up to `weakPairTolerance` τ.
  public static let weakRatio = 0.8
  static let weakPairTolerance = 1.5
  /// A far-off long interval under this many reference intervals, after a clean one at least the reference, is the
  /// heart slowing and stays clean (`slowsAfterSinus`). A missed beat spans two intervals: 1.7 or more by the
  /// missed-beat test, down to about 1.6 where the two it spans were short ones.
  static let slowingLimit = 1.6
  static let sizeHistory = 8
  /// A beat whose shape matched the pulse template below this r² (`addBeat`'s `shape`) is misshapen: a movement
  /// bends the pulse, or its peak was taken for one. Inside a movement the detector still finds most beats on time,
  /// so a misshapen beat alone proves nothing; but an interval it bounds that is off beyond `misshapenOffByD` × d
  /// with no pattern to explain it is `irregular`: a breath swings a variable heart's intervals that far, a movement
  /// places a false beat anywhere. (docs/detector.md: at r² 0.7, or from 1 d off, windows off grew on some sets.)
  public static let misshapenBelow = 0.6
  static let misshapenOffByD = 1.5
}
