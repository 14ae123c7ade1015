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
