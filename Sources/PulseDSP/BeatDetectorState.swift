// The detector's state in named parts. Each part is a plain struct of integers (no allocation, no references),
// so the whole detector stays one value that the optimiser keeps in place.
extension BeatDetector {
  /// The working-rate clock: the index of the next working sample since the last restart of the stream, and the
  /// stream position of that restart (a gap or `reset`). Beat positions are `origin + index × M`.
  struct WorkingClock: Sendable {
    var index: Int64 = 0
    var origin: Int64 = 0
    /// The band-passed value of the previous working sample (for the slope).
    var previousValue: Int64 = 0
  }

  /// Whether the finger is on the sensor, from the raw monitor's blocks: detection is suspended while the raw
  /// signal is bad, and for raw intensity, the light level during good beats tells a lifted finger.
  struct ContactWatch: Sendable {
    /// The last raw block was flat, dark, saturated or lost its light: detection is suspended.
    var rawBad = false
    /// Raw-intensity input: the light level (block mean) while beats were good, and how many blocks ago.
    var level: Int64 = 0
    var blocksSince = 0
    /// Below `level`'s share: the last such block (as `blocksSince`), the darkest block mean since the light fell,
    /// and the last block's mean.
    var darkBlock = -2
    var darkest: Int64 = 0
    var previousMean: Int64 = 0
    /// Raw intensity since contact came back: the blocks are watched for the light still climbing
    /// (`BeatDetector.handleReturnBlock`), against the raw level the filters were last primed on.
    var watchesReturn = false
    var primedLevel: Int64 = 0
  }

  /// The hysteresis peak/trough tracker: alternates between climbing to a peak and descending to a trough; a
  /// peak is confirmed once the signal has fallen `hysteresis` below it.
  struct PeakTracker: Sendable {
    var rising = true
    /// The highest value since the last trough, where it was, and its neighbours (for the parabola).
    var peakValue = Int64.min
    var peakIndex: Int64 = 0
    var peakBefore: Int64 = 0
    var peakAfter: Int64 = 0
    var needAfter = false
    var valley = Int64.max
    /// The trough the current peak rose from.
    var trough: Int64 = 0
    /// Steepest rise since that trough.
    var upSlope: Int64 = 0
    var hysteresis: Int64 = 0
    /// The energy gate's peak-window sum centred on the current peak, once taken (W1/2 after it).
    var energy: Int64 = 0
    var energyTaken = false
    /// The last new high still rising at a quarter of the upstroke's steepest (`kneeSlopeShift`): where the pulse's
    /// rise ended when what follows is a slow climb (a pulse on a respiratory upslope) rather than a fall.
    var kneeIndex: Int64 = 0
    var kneeValue: Int64 = 0

    /// One working sample; true when it confirms the current peak (the caller then takes its upslope and, if
    /// it wants it, the candidate).
    @inline(__always)
    mutating func track(value: Int64, slope: Int64, index: Int64) -> Bool {
      if rising {
        if slope > upSlope { upSlope = slope }
        if value > peakValue {
          startPeak(value: value, slope: slope, index: index)
          if slope &<< BeatDetectorTuning.kneeSlopeShift >= upSlope {
            kneeIndex = index
            kneeValue = value
          }
          return false
        }
        if needAfter {
          peakAfter = value
          needAfter = false
        }
        if value < peakValue &- hysteresis {
          rising = false
          valley = value
          return true
        }
      } else if value < valley {
        valley = value
      } else if value > valley &+ hysteresis {
        trough = valley
        rising = true
        startPeak(value: value, slope: slope, index: index)
        upSlope = max(0, slope)
        kneeIndex = index
        kneeValue = value
      }
      return false
    }

    @inline(__always)
    private mutating func startPeak(value: Int64, slope: Int64, index: Int64) {
      energy = 0
      energyTaken = false
      peakValue = value
      peakIndex = index
      peakBefore = value &- slope
      needAfter = true
    }

    /// The steepest rise of the confirmed peak; the next peak's starts afresh.
    mutating func takeUpSlope() -> Int64 {
      let slope = upSlope
      upSlope = 0
      return slope
    }

    /// The knee of a peak too slow to confirm, as a candidate with upslope `slope` (no parabola: a knee is no vertex).
    func kneeCandidate(slope: Int64) -> Candidate {
      Candidate(
        index: kneeIndex, value: kneeValue, before: kneeValue, after: kneeValue, amplitude: kneeValue &- trough,
        slope: slope, trough: trough, energy: energy)
    }

    /// The confirmed peak as a candidate with upslope `slope`.
    func candidate(slope: Int64) -> Candidate {
      Candidate(
        index: peakIndex, value: peakValue, before: peakBefore, after: peakAfter, amplitude: peakValue &- trough,
        slope: slope, trough: trough, energy: energy)
    }
  }

  /// Learning after a (re)start, while no beat has set references: the range and steepest slope seen since the
  /// settling time.
  struct Acquisition: Sendable {
    /// Working index before which candidates are ignored (filters settling).
    var settledAfter: Int64 = 0
    var rangeMax = Int64.min
    var rangeMin = Int64.max
    var steepestSlope: Int64 = 0

    var range: Int64 { rangeMax > rangeMin ? rangeMax &- rangeMin : 0 }

    /// A peak too slow to confirm while learning: the range and the slope seen so far were a slope the signal still
    /// climbs (the filters settling after a finger was put back), whose hysteresis no pulse on it falls by in time.
    /// Learning measures them again from here.
    mutating func forgetRange() {
      rangeMax = .min
      rangeMin = .max
      steepestSlope = 0
    }

    mutating func observe(value: Int64, slope: Int64) {
      if value > rangeMax { rangeMax = value }
      if value < rangeMin { rangeMin = value }
      if slope > steepestSlope { steepestSlope = slope }
    }
  }

  /// The candidate waiting out the merge window.
  struct MergeWindow: Sendable {
    var isOpen = false
    var candidate = Candidate()
    /// Whether the candidate's centred energy has been taken (else it is the tracker's at confirmation).
    var energyTaken = false
    /// The candidate came within the refractory period of the last beat and replaces it (BeatDetector+Replace).
    var replaces = false
    /// The candidate is an early one the score turned away, let through to be matched with the pulse's shape
    /// (`BeatDetector.strongPulse`) when the window closes.
    var needsShape = false
  }

  /// How far the feet of successive beats move (`BeatDetector.watchBreath`): a deep breath's baseline. Kept through a
  /// restart (the breathing that made the detector lose the rhythm goes on); new after fresh filters.
  struct BreathWatch: Sendable {
    /// |foot − the last beat's foot|, Q8 input units: the median of the last five (it follows a breath better than
    /// judging each step against the amplitude when it came; docs/log/ has the comparison).
    var footSteps = RecentMedian()
    var lastFoot: Int64 = 0
    var hasFoot = false
    /// Beats in a row whose median step was above the engage share, below the release share.
    var wideBeats = 0
    var narrowBeats = 0
  }

  /// What recent beats looked like: running medians of their amplitude and upslope, the references derived from
  /// them (decayed while beats are overdue), and the last beat's amplitude and height.
  struct PulseReferences: Sendable {
    var amplitudes = RecentMedian()
    var slopes = RecentMedian()
    var decayQ15: Int64 = 1 << 15
    var amplitude: Int64 = 0
    var slope: Int64 = 0
    var lastAmplitude: Int64 = 0
    var lastHeight: Int64 = 0

    var isEmpty: Bool { amplitudes.isEmpty }
    var isDecayed: Bool { decayQ15 < 1 << 15 }

    mutating func update() {
      amplitude = (amplitudes.median &* decayQ15) >> 15
      slope = (slopes.median &* decayQ15) >> 15
    }
  }

  /// The rhythm: the last beat, a running median of the intervals, which recent intervals were off the
  /// rhythm, and the adaptation timers that follow from them.
  struct RhythmTracker: Sendable {
    var intervals = RecentMedian()
    var hasLastBeat = false
    var lastBeatIndex: Int64 = 0
    /// The beat before the last one (since the restart), and whether the last one pushed its interval.
    var hasPreviousBeat = false
    var previousBeatIndex: Int64 = 0
    var lastIntervalPushed = false
    /// The last interval was within `regularTolerance` of the expected one.
    var regular = false
    /// The last five intervals, newest in bit 0: 1 = off the rhythm.
    var offBits = 0
    var count = 0
    var lastInterval: Int64 = 0
    /// The last eight beats, newest in bit 0: 1 = its shape did not match the pulse template.
    var misshapenBits = 0
    /// Beats on the rhythm so far (their shape is sampled, not checked on every one).
    var onTimeCount = 0
    /// The last beat that was on the rhythm or matched the pulse's shape (0: none since the restart).
    var anchorIndex: Int64 = 0
    /// Working index after which the references decay, and after which lock counts as lost.
    var decayFrom = Int64.max
    var lostAt = Int64.max

    /// The median interval, 0 when none is known.
    var expected: Int64 { intervals.isEmpty ? 0 : intervals.median }

    /// How many of the last five intervals were off the rhythm.
    var offCount: Int { (offBits & 1) + (offBits >> 1 & 1) + (offBits >> 2 & 1) + (offBits >> 3 & 1) + (offBits >> 4 & 1) }

    /// The last two intervals continued the rhythm.
    var isSteady: Bool { count >= 2 && offBits & 0b11 == 0 }
    /// An interval of the last five was off the rhythm (AF, runs of premature beats, or beats missed).
    var isIrregular: Bool { offBits != 0 }
    /// Three of the last five intervals were off the rhythm: the rhythm alone makes a good signal poor, as AF's does.
    var isClearlyIrregular: Bool { offCount >= 3 }
  }

  /// Whether the pulse carries a recurring secondary (dicrotic or reflected) wave, and where: after each beat,
  /// the first peak that was not a beat (past the refractory period, before the next beat) is noted. A
  /// secondary wave recurs after nearly every beat at the same delay; an early (premature) beat does not. Once
  /// that is known, only candidates near the learnt delay are treated as secondary waves, and when the pulse
  /// has none, early candidates are judged like any other: the fixed zones stay only while it is unknown.
  struct SecondaryWaveWatch: Sendable {
    enum State: Sendable, Equatable {
      /// Not enough beats seen, or peaks between beats at no consistent delay (noise): fixed zones.
      case unknown
      /// (Almost) no peak between beats: no secondary wave to guard against.
      case absent
      /// A secondary wave at the median delay `delays.median` (working samples) after nearly every beat.
      case recurring
    }

    /// Delays (working samples after the beat) of the last secondary peaks seen.
    var delays = RecentMedian()
    /// The last eight beats, newest in bit 0: 1 = a secondary peak followed it.
    var bits = 0
    var count = 0
    /// The current beat's first secondary peak (its delay), or nil.
    var pendingDelay: Int64?
    /// Rejected peaks beyond the first in the current span, and over the last eight spans (4 bits each).
    var pendingExtra = 0
    var extraNibbles: UInt32 = 0
    var extraTotal: Int {
      // The eight nibbles summed in parallel: pairs into bytes (≤ 30 each), then the bytes into the top one (≤ 120).
      let pairs = (extraNibbles & 0x0F0F_0F0F) &+ (extraNibbles &>> 4 & 0x0F0F_0F0F)
      return Int((pairs &* 0x0101_0101) &>> 24)
    }
    var state = State.unknown

    /// How many of the last eight beats had a secondary peak.
    var ones: Int { (bits & 0xFF).nonzeroBitCount }
  }

  /// Events of the current sample, drained after it, and the last quality reported.
  struct EventOutbox: Sendable {
    var readyBeat: DetectedBeat? {
      didSet { hasBeat = readyBeat != nil }
    }
    /// `readyBeat != nil`, kept as a plain flag for the per-sample test: testing the optional itself (a struct with
    /// Bool fields) cost three instructions more per sample (callgrind, 100 Hz).
    private(set) var hasBeat = false
    /// A missed beat found by search-back, reported just before `readyBeat` (and after `SearchBack.earlierBeat`).
    var recoveredBeat: DetectedBeat?
    var reportedQuality: SignalQuality = .settling
    var qualityChangedAt: Int64 = 0
    var qualityRhythmOnly = false
  }
}
