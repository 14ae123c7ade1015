/// The detector's constants, each with where it comes from. Times are seconds, ratios plain numbers; `init`
/// turns them into working-rate sample counts and Q8/Q16 integers once. See docs/detector.md for how they
/// were chosen (on 14 real recordings, one with an ECG reference) and what they trade.
enum BeatDetectorTuning {
  // MARK: - Filters

  /// Decimate fast input to at least this rate: a pulse needs no more (qppg resamples to 125 Hz), and
  /// parabolic interpolation still places the peak within ~1 ms.
  static let workingRateHz = 125.0
  /// Band-pass corners of Elgendi et al. 2013 (PLoS ONE 8(10): e76585), the best of their comparison:
  /// 0.5 Hz removes drift and respiration, 8 Hz keeps the systolic upstroke.
  static let highPassCornerHz = 0.5
  static let lowPassCornerHz = 8.0
  /// A deep breath's baseline passes the 0.5 Hz high-pass at about 0.6 (0.3-0.4 Hz breathing): with a wander 2.5
  /// times the pulse, the beats on its fall rise 0.1-0.2 of the references from their feet, under `featureFloor`,
  /// and the detector follows the breathing. While the feet of successive beats move by more than
  /// `breathWanderEngage` of the reference amplitude (median of the last five steps) for `breathEngageBeats` beats in
  /// a row, the high-pass runs at this corner (a breath at 0.4 Hz then passes at 0.37, a 70 bpm pulse's fundamental
  /// at 0.76); once they move less than `breathWanderRelease` of it for `breathReleaseBeats` beats, at 0.5 Hz again.
  /// No other pulse comes near: over the evaluation set's held-out records the feet's median step is at most 0.39
  /// of the amplitude on slow records (a 40 bpm pulse's long diastole), 0.24 on noisy ones, 0.29 on premature beats;
  /// respiration records reach 1.7, and those the detector followed 0.85-1.7. (A steeper high-pass everywhere cost
  /// the slow and noisy records more than it gave: docs/log/detector-issue12-rounds.md.) 0.8-1.2 Hz and an engage
  /// share of 0.7-0.86 measured alike; 0.55 started to reach noisy records.
  static let breathHighPassCornerHz = 1.0
  static let breathWanderEngage = 0.7
  static let breathWanderRelease = 0.35
  static let breathEngageBeats = 4
  /// Longer than to engage: the higher corner halves the wander it measures.
  static let breathReleaseBeats = 8
  /// The low-pass corner never exceeds this share of the working rate (slow input such as a 20 Hz watch).
  static let lowPassMaximumShareOfRate = 0.4

  // MARK: - Timing

  /// After a start, a gap or a lost finger: filters settle (five high-pass time constants would be 1.6 s;
  /// the high-pass starts from the first sample, so half a second suffices) before candidates count.
  static let settleSeconds = 0.5
  /// No two beats closer than this: 240 bpm.
  static let refractorySeconds = 0.25
  /// A candidate waits this long for a higher peak (a systolic peak preceded by a shoulder or a noise
  /// spike): the higher one wins. Bounds the latency with `confirmSeconds`.
  static let mergeSeconds = 0.15
  /// A peak must fall by the hysteresis within this time to be a candidate: systolic peaks fall fast,
  /// plateaus and slow drifts do not. Bounds the latency with `mergeSeconds`.
  static let confirmSeconds = 0.2
  /// A pulse on a respiratory upslope as large as itself rises steeply, then goes on climbing slowly with the
  /// baseline: its peak never falls in time. Its knee, the last new high still rising at 2^−kneeSlopeShift (a
  /// quarter) of the upstroke's steepest, is offered to search-back instead, which takes it only when the rhythm
  /// says a beat is missing there. A quarter was chosen before measuring, not fitted.
  static let kneeSlopeShift: Int64 = 2
  /// A first beat after a restart whose amplitude is more than this many seconds of its steepest upslope rose with
  /// the filters' settling (a finger put back while the light still climbs), not by itself: on the evaluation set
  /// first beats measure 0.07-0.11 s (median 0.08), those after a finger was put back 0.18-0.36 s. It is reported,
  /// but does not set the references (`BeatDetector.acceptSettlingBeat`).
  static let settlingRiseSeconds = 0.17

  // MARK: - Peak picking

  /// Hysteresis of the peak/trough tracker: a tenth of the reference amplitude (while learning: a tenth of
  /// the signal's range since the restart).
  static let hysteresisShare = 0.1
  /// While learning (no reference yet), a candidate must rise at least half the signal's range since the
  /// restart and have at least half the steepest slope seen.
  static let acquisitionShare = 0.5
  /// Candidate score: sqrt(amplitude / reference × slope / reference slope) ≥ this, normally...
  static let scoreThreshold = 0.4
  /// ...and ≥ this when it arrives on time (within `regularTolerance` of the expected interval) after a beat
  /// that also arrived on time, its peak above the filtered zero: weak beats inside a regular rhythm are kept.
  static let relaxedScoreThreshold = 0.25
  /// Neither amplitude nor slope may fall below this share of its reference, whatever the score.
  static let featureFloor = 0.2
  static let regularTolerance = 0.15
  /// For the signal-quality state: an interval more than this share off the expected one breaks the rhythm.
  static let rhythmTolerance = 0.3

  // MARK: - Secondary (dicrotic / reflected) waves

  /// The reflected wave arrives 0.2-0.4 s after the systolic peak whatever the heart rate. Within this zone
  /// after a beat (or 0.6 of the expected interval if longer), a candidate must be at least 0.5 as tall and
  /// as large as that beat: secondary waves are smaller and lower. (0.6 turned away early beats, which are weak
  /// because their ventricle had less time to fill: AF's short-coupled beats, premature beats at 25 Hz.)
  static let secondaryZoneSeconds = 0.45
  static let secondaryZoneShareOfInterval = 0.6
  static let secondaryRatio = 0.5
  /// Up to this long after a beat (or the zone, if longer), a candidate lower than 0.5 × the last beat's
  /// height and rising less than it is a late secondary wave.
  static let secondaryHeightZoneSeconds = 0.6
  /// The zones are a guard while the pulse is unknown. A secondary wave recurs after nearly every beat at the
  /// same delay; an early beat does not. Of the last eight beats, at least this many followed by a peak that
  /// was not a beat (within the height zone), at delays consistent within ±max(60 ms, 20 %) (four of the
  /// last five): a recurring wave, rejected only near its delay. At most `secondaryAbsentCount`: no secondary
  /// wave, early candidates are judged by their score alone.
  static let secondaryRecurringCount = 6
  static let secondaryAbsentCount = 1
  static let secondaryMinimumBeats = 6
  static let secondaryDelayToleranceSeconds = 0.06
  static let secondaryDelayToleranceShare = 0.2
  /// Peaks between beats beyond each beat's first one (its secondary wave), summed over the last eight beats: at
  /// least this many and the pulse is buried in noise (poor signal, whatever the rhythm); at most
  /// `quietExtraPeaks` before it counts as good again.
  static let noisyExtraPeaks = 4
  static let quietExtraPeaks = 2

  // MARK: - Energy gate (Elgendi et al. 2013, PLoS ONE 8(10): e76585)

  /// Moving averages of the clipped, squared pulse over a systolic peak's width and over a beat, and the offset
  /// (a share of the squared signal's long-term mean) the first must exceed the second by. Elgendi's values.
  static let energyPeakWindowSeconds = 0.111
  static let energyBeatWindowSeconds = 0.667
  static let energyOffset = 0.02
  static let energyMeanSeconds = 8.0

  // MARK: - Pulse template (PulseTemplate.swift)

  /// The window compared with the template of recent good pulses: the upstroke before the peak (at most half
  /// the expected interval), the start of the downstroke after it (within the merge window, when the candidate
  /// is decided).
  static let templateBeforeSeconds = 0.3
  static let templateAfterSeconds = 0.12
  /// Points of the window this far apart (or every gate sample, if further): eight points (at 50-125 Hz gate rates)
  /// describe the upstroke and peak of a pulse low-passed at 8 Hz, and the cost per candidate stays small.
  static let templatePointSpacingSeconds = 0.06
  /// Pearson's r with the template. A candidate off the rhythm (not within `regularTolerance` of the expected
  /// interval: early, late, or after a false beat) below `templateMatchCorrelation` is no beat; a candidate on
  /// the rhythm below `templateFloorCorrelation` neither (nothing of a pulse's shape). A beat on the rhythm
  /// below the match level is kept but marks the signal poor for the next eight beats; above it, it may join the
  /// template (the first four such beats after a restart, then every fourth, PulseTemplate.learnEvery).
  static let templateMatchCorrelation = 0.7
  static let templateFloorCorrelation = 0.35
  /// A candidate late on the rhythm (after the expected interval, beyond `regularTolerance`) comes where neither a
  /// secondary wave nor the noise on the next pulse's foot lies: the pulse after a long interval, or after a beat
  /// missed or taken early. In noise such a pulse matches the template less well than a clean one, and at r below
  /// `templateMatchCorrelation` it was turned away, the rhythm lost with it. From this r on it is a beat (r from 0.5
  /// locked a noisy record on noise, from 0.65 found fewer beats; the comparison is in docs/log/).
  static let templateLateCorrelation = 0.6
  /// The detector acts on the match of a beat on the rhythm when (count & mask) == 0: every fourth, once the template
  /// is ready (a pulse's shape changes over tens of beats; candidates off the rhythm, where false beats are, all
  /// count). Every beat's match is still measured and reported, for the IBI cleaner.
  static let templateOnTimeMask = 3

  /// No beat, not even a premature one (20-35 % early), comes sooner than this share of an expected interval after
  /// another; secondary waves and motion after a beat do. Search-back keeps its candidate this far from both beats, a
  /// taller peak sooner replaces a noise beat (poor signal), and a steep early beat is taken only from here on.
  static let earliestBeatShare = 0.5
  /// ...but in an irregular rhythm (an interval off in the last five) a short-coupled beat with a steep stroke is taken
  /// from this share on (`BeatDetector.steepEarlyBeat`): AF's short-coupled beats come at 0.4-0.5 of the median
  /// interval too. 0.35 is the level search-back once used (it stays at 0.5 there: motion before a beat).
  static let irregularEarliestBeatShare = 0.35

  // MARK: - Search-back (BeatDetector+SearchBack.swift)

  /// A beat at least this many expected intervals after the last one reveals a missed beat between them...
  static let searchBackLongShare = 1.6
  /// ...the best rejected candidate at least `earliestBeatShare` of an expected interval from both beats (at 0.35
  /// search-back took motion just before a beat on pyphysio_medical and on two motion records of the set)...
  /// ...whose score (as `scoreThreshold`, against the medians of the last beats) reaches this. Only in a quiet span
  /// whose recent beats had the pulse's shape, in good or poor signal (BeatDetector+SearchBack.swift).
  static let searchBackScore = 0.25

  // MARK: - Replacement (BeatDetector+Replace.swift)

  /// A candidate inside the refractory period replaces the last beat if it is at least this much larger than that
  /// beat (and passes the score): the merge window's "higher peak wins" after the fact. 1.25-2 all lift the noisy
  /// records' F1 by 0.004-0.008 (docs/detector.md); 1.25 and below also swap some real beats for motion peaks.
  static let replaceAmplitudeRatio = 1.5
  /// ...and at least this much larger when the last beat came early and the candidate is on the rhythm from the beat
  /// before it (inside the secondary-wave zone too): the rhythm says which of the two is the pulse.
  static let onRhythmReplaceAmplitudeRatio = 1.2
  /// ...or, whatever its amplitude, when its peak stands at least this many times as high above the filtered
  /// baseline as the beat's did (and it passes the score): of two peaks closer than any two beats, the systolic one is
  /// the taller, and a noise peak taken on the pulse's foot stands near the baseline.
  static let tallerPeakReplaceRatio = 2.0
  /// In poor signal a candidate `onRhythmReplaceAmplitudeRatio` times as high as the last beat replaces it when that
  /// beat came off the rhythm, early, and the candidate lands on it (`standsAboveOnRhythm`), but only where a peak's
  /// sampled height is near its vertex's: at working rates of at least this. A peak of the band-passed signal (8 Hz
  /// corner) sampled half a sample from its vertex reads 1 − cos(π × 8 / rate) low: 13 % at 48 Hz, 46 % at 25 Hz,
  /// more than the 20 % the rule asks (applied at 25 Hz, it lost beats on every set measured; docs/log/).
  static let heightResolvedRateHz = 48.0

  // MARK: - Adaptation

  /// When no beat came for max(1.2 s, 2 expected intervals), the references halve every second, so a sudden
  /// amplitude drop (gain change, vasoconstriction) is followed within a few beats.
  static let decayAfterSeconds = 1.2
  static let decayAfterIntervals = 2.0
  static let decayHalfLifeSeconds = 1.0
  /// ...but never below this share of their value at the last beat: through a few seconds of motion the
  /// references stay high enough that noise is not taken for beats. A larger drop is followed by re-learning
  /// once lock is lost.
  static let decayFloor = 0.35
  /// Decayed references only apply to a candidate within this share of an interval of the rhythm's
  /// continuation (k expected intervals after the last beat).
  static let phaseTolerance = 0.25
  /// After max(3 s, 2.5 intervals) without a beat the detector has lost lock: it reports poor signal and
  /// learns the pulse afresh.
  static let lostAfterSeconds = 3.0
  static let lostAfterIntervals = 2.5
  /// Intervals longer than this are not used for the expected interval (a missed beat, a pause).
  static let longestIntervalSeconds = 2.0
  /// Raw intensity below this share of its level during good beats means the finger left (reflectance
  /// drops by 90 % and more; pressure and motion change it by tens of per cent)...
  static let contactLossShare = 0.25
  /// ...the old level is remembered this long, after which any level is accepted as contact.
  static let contactMemorySeconds = 120.0
  /// A finger put back more lightly: the light rises to this many times the darkest level since it was lost, and
  /// to at least 1/2^`contactReturnFloorShift` of the old level (ambient light through a lifted finger's gap
  /// moves by far less; a lifted finger may stay off for minutes).
  static let contactReturnRise: Int64 = 4
  static let contactReturnFloorShift: Int64 = 4

  /// Expected interval before any is known (only used for the adaptation timers).
  static let defaultIntervalSeconds = 1.0
}
