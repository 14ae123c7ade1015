/// How HRV windows are laid out and when one is good enough to score.
public struct HRVWindowConfiguration: Sendable, Equatable {
  /// Window length, seconds (DESIGN.md: 60 s).
  public var lengthSeconds: Double
  /// Hop between window ends, seconds (the daemon's cadence; `analyze` uses the same so replays agree).
  public var stepSeconds: Double
  /// Share of the window that clean intervals must cover (beats lost to motion, gaps or settling lower it).
  public var minimumCoverage: Double
  /// Largest share of rejected intervals before the window counts as poor signal.
  public var maximumRejectedShare: Double
  /// A no-contact or saturated share of the window at or above this names the window's state.
  public var dominantShare: Double
  /// A poor-signal share at or above this names the window's state (its beats are there but doubtful); when
  /// coverage is too low, a bad state covering at least this share is named as the cause, otherwise the window
  /// has "too few beats".
  public var causeShare: Double
  /// The median successive difference of the window's plausible intervals, relative to their median, at or above
  /// which the rhythm is irregular (AF-like) and not scored. Sinus rhythm changes little from one beat to the
  /// next even when it swings widely (respiratory arrhythmia makes smooth runs; a few artefacts do not move a
  /// median); in atrial fibrillation each interval is independent of the last, and for independent intervals
  /// with a relative spread σ this median is about σ (0.95 σ for a normal law). Real AF has σ ≈ 0.15-0.25.
  public var irregularRhythmMedianDifference: Double
  /// A window whose beats had on average at least this many turned-away peaks beyond their secondary wave
  /// (`DetectedBeat.extraPeaks`)...
  public var noisyExtraPeaksPerBeat: Double
  /// ...and more than two in five of whose judged beats (`HRVWindowing.unlikeShare`) matched the pulse template below
  /// this r² (`DetectedBeat.shapeQ8`; at least `HRVWindowing.minimumJudgedBeats` judged) is poor signal: the pulse is
  /// buried in noise. Its beats are mostly right, but their peaks move with the noise by tens of milliseconds, and
  /// SDNN reads 10-50 % high. A slow pulse's late wave adds peaks but keeps the pulse's shape; motion bends the shape
  /// but adds no peaks between beats.
  public var noisyShapeMatch: Double
  /// An interval the cleaner kept that is at least this many times the median of the window's kept intervals is left
  /// out of the window's figures and counted as rejected: a missed beat (about 2) or worse. The cleaner judges each
  /// interval against its neighbours, and where those were missed beats too (a stretch where the detector followed a
  /// deep breath and found one beat in two or three) it keeps them; against a minute's median they stand out. 1.7 is
  /// where the cleaner's own missed-beat band starts (2 − its pattern tolerance). No sinus interval comes near: the
  /// slowest, most variable held-out hearts reach 1.5 (at 1.6 the set's windows off by more than 10 % went 22 → 28).
  public var longIntervalRatio: Double

  public init(
    lengthSeconds: Double = 60, stepSeconds: Double = 10, minimumCoverage: Double = 0.5,
    maximumRejectedShare: Double = 0.3, dominantShare: Double = 0.5, causeShare: Double = 0.25,
    irregularRhythmMedianDifference: Double = 0.12, noisyExtraPeaksPerBeat: Double = 0.08,
    noisyShapeMatch: Double = 0.93, longIntervalRatio: Double = 1.7
  ) {
    self.lengthSeconds = lengthSeconds
    self.stepSeconds = stepSeconds
    self.minimumCoverage = minimumCoverage
    self.maximumRejectedShare = maximumRejectedShare
    self.dominantShare = dominantShare
    self.causeShare = causeShare
    self.irregularRhythmMedianDifference = irregularRhythmMedianDifference
    self.noisyExtraPeaksPerBeat = noisyExtraPeaksPerBeat
    self.noisyShapeMatch = noisyShapeMatch
    self.longIntervalRatio = longIntervalRatio
  }
}

/// One finished HRV window: its figures, why it can or cannot be scored, and the score when it can.
public struct HRVWindowSummary: Sendable, Equatable, Codable {
  /// Stream seconds, [start, end).
  public var startSeconds: Double
  public var endSeconds: Double
  public var quality: WindowQuality
  /// HRV of the clean intervals ending in the window; nil with fewer than three.
  public var metrics: HRVMetrics?
  public var cleanIntervals: Int
  public var rejectedIntervals: Int
  /// Share of the window's length covered by clean intervals.
  public var coverage: Double
  /// The stress score; only for `quality == .good`, never a made-up number otherwise.
  public var stress: StressResult?

  public init(
    startSeconds: Double, endSeconds: Double, quality: WindowQuality, metrics: HRVMetrics?, cleanIntervals: Int,
    rejectedIntervals: Int, coverage: Double, stress: StressResult?
  ) {
    self.startSeconds = startSeconds
    self.endSeconds = endSeconds
    self.quality = quality
    self.metrics = metrics
    self.cleanIntervals = cleanIntervals
    self.rejectedIntervals = rejectedIntervals
    self.coverage = coverage
    self.stress = stress
  }

  /// Rejected share of the window's intervals (0 when there are none).
  public var rejectedShare: Double {
    let total = cleanIntervals + rejectedIntervals
    return total == 0 ? 0 : Double(rejectedIntervals) / Double(total)
  }
}
