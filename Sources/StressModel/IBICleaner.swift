/// Streaming IBI cleaning by artefact signature: beats in, judged intervals out, in order, a bounded number of
/// beats late.
///
/// A fixed band around a local median (the usual RR clean-up) cannot tell an artefact from real variability:
/// respiratory sinus arrhythmia makes runs of long and short intervals, and a real NN series has a few per cent
/// of its intervals 20-40 % from their neighbours. Artefacts differ by their *pattern* (Lipponen & Tarvainen
/// 2019, the Kubios method; Kamath & Fallen 1995), so each interval x is compared with a local reference m and
/// its successor y, in units of m (a = x/m, b = y/m):
/// - **missed beat**: a ≈ 2 (or 3): one interval spans two;
/// - **extra beat**: a false detection split one interval (both excluded): a and b short, a + b ≈ 1; or one of them
///   a fragment far short (below 1 − 2.5d) beside one not long (below 1 + d/2), a + b ≈ 1 or within τ/2 of the
///   interval after them when that one is steady (not far off): a false beat late in a long interval;
/// - **premature beat**: a short, b long, a jump b − a beyond D, a + b ≈ the two neighbouring intervals (or 2;
///   within 1.5 τ when the beat between is weak), and the interval after them not long or the jump beyond 1.5 D
///   (compensatory pause); or a short and b ≈ 1 with a jump beyond 0.6 D (the rhythm resets from it); or a short
///   in a V, 0.65 D below the mean of the clean interval before and b, each 0.1 above it (sinus rhythm changes
///   gradually; in a very variable heart, whose D is large, a 20–35 % early beat passes the two tests before); or a
///   below both its neighbours and b a spike more than D above both a and the interval after it, though short of a
///   missed beat (under 2 − τ), once D is learned and below its cap (`pauseAfterLateEarlyBeat`: a beat early on an
///   interval already long). Both intervals touch a non-sinus beat and are excluded, as NN intervals exclude them;
/// - **misplaced beat**: a long, b short, a − b beyond D, a + b ≈ the neighbours' sum: a beat found out of place
///   (hidden in a shoulder, taken late), unless b and its successor are themselves an extra or a premature beat
///   (a respiratory peak followed by a premature beat looks the same from a alone);
///   or a short (beyond d), then b over 1.5 with a + b within τ of a whole number (3 or more): a beat found early
///   and the next one missed;
/// - **irregular**: no pattern, but far off (a < 1 − 2.5d or a > 1 + 3d): noise, unexplained, or the long
///   interval of a premature beat the pair test missed, unless long under 1.6 after a clean interval at least m (the
///   heart slowing: a pause follows an early beat's short interval); or no pattern and the interval after the beat at
///   which the detector found the rhythm clearly irregular while the pulse stayed clean (`noteIrregularRhythm`); or
///   no pattern, off beyond 1.5d, and a beat bounding it unlike the pulse (`misshapenBelow`): a movement's peak taken
///   for a beat, or a beat's time bent by it, within what a breath swings.
/// Everything else is clean, however far it swings: a real isolated long interval returns to normal after it,
/// it is not followed by a short one. "Short" and "long" mean beyond d, a time-varying threshold (Kubios' idea):
/// d = 3 × the robust spread (1.4826 × median |a − 1|) of the last 60 clean intervals, kept in 0.12...0.2, so a
/// very regular heart still has a margin and a very variable one still shows 20 %-early beats. D is the same
/// for successive differences of clean intervals (4 × their robust spread, kept in 0.25...0.4): real
/// respiratory swings change the interval gradually, a premature beat jumps.
///
/// The reference m is the median of the last three clean intervals and of the plausible intervals two to four
/// after x (x and y themselves are left out: a premature beat or an extra detection disturbs both). A
/// compensatory pair is compared with its own neighbours' sum (the clean interval before and the one after),
/// which follows respiratory swings better than 2m, unless the interval after the pair is itself far off (a missed
/// beat after a misplaced one): then 2m. Judging an interval therefore waits for `lookAhead`
/// successors; a gap (`breakSegment`) or `finish` judges the waiting ones with what is there. Nothing is
/// stitched across a gap. Measured on the real NN series and on injected artefacts in docs/detector.md.
public struct IBICleaner: Sendable {
  /// Intervals after the judged one that a verdict waits for.
  public static let lookAhead = 4
  /// Clean intervals before the judged one in its reference, and judged ones where those are too few (a
  /// segment's start or end).
  static let leftReference = 3
  static let leftFallback = 5
  /// Clean intervals whose deviations (and successive differences) give the spreads, and how many are needed
  /// before a spread replaces the default (a resting heart's, about 6 % of the interval).
  static let spreadHistory = 60
  static let spreadMinimumCount = 10
  static let defaultSpread = 0.06
  /// 1.4826 × median absolute deviation estimates a standard deviation.
  static let madToStandardDeviation = 1.4826
  /// The thresholds are recomputed every this many verdicts (a power of two).
  static let thresholdRefresh = 8
  /// Fewest reference intervals to judge at all.
  static let minimumReference = 4

  // MARK: - Properties

  public let configuration: Configuration
  /// The end of the earliest interval still waiting for its verdict; nil when none waits.
  public var earliestUndecidedEndSeconds: Double? { waiting.first?.end }
  public private(set) var cleanCount = 0
  public private(set) var rejectedCount = 0

  private var segment = 0
  private var lastBeat: Double?
  /// Intervals waiting for their verdict, oldest first (at most `lookAhead` + 1).
  private var waiting: [Waiting] = []
  /// The last beat was misshapen (`misshapenBelow`).
  private var lastBeatMisshapen = false
  /// Intervals after the last beat still set aside for an outsized beat before it; the sizes of recent beats that
  /// were not outsized.
  private var outsizedIntervalsLeft = 0
  /// The interval the next beat closes follows the beat at which the detector found the rhythm irregular.
  private var nextIsOffRhythm = false
  private var sizes: SortedRecentValues
  /// The verdict the oldest waiting interval already has (the second of a pair), if any.
  private var pairedVerdict: InterBeatInterval.Verdict?
  /// This segment's last clean intervals and last judged plausible intervals, ms.
  private var clean: RecentValues
  private var judgedPlausible: RecentValues
  /// Whether the last judged interval of this segment was clean (its value is `clean`'s newest).
  private var lastWasClean = false
  /// |a − 1| of recent clean intervals, and |Δ| / m between consecutive clean ones (kept across segments: they
  /// describe the wearer, not the stretch).
  private var deviations: SortedRecentValues
  private var jumps: SortedRecentValues
  /// d and D as last computed, and verdicts since.
  private var deviationThreshold = 0.18
  private var jumpThreshold = 0.25
  private var thresholdAge = 0
  private var scratch: [Double]

  // MARK: - Initialization

  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
    waiting.reserveCapacity(Self.lookAhead + 2)
    clean = RecentValues(capacity: Self.leftReference)
    judgedPlausible = RecentValues(capacity: Self.leftFallback)
    deviations = SortedRecentValues(capacity: Self.spreadHistory)
    jumps = SortedRecentValues(capacity: Self.spreadHistory)
    sizes = SortedRecentValues(capacity: Self.sizeHistory)
    scratch = [Double](repeating: 0, count: Self.spreadHistory)
  }

  // MARK: - Public

  /// A beat at `seconds` (stream timeline, increasing), of `size` (the pulse's amplitude in any unit, the same
  /// for every beat; nil when not known) and `shape` (r² of its match with the pulse's shape, 0...1; nil when not
  /// known). Emits the intervals that can now be judged. Both intervals at an outsized beat (`outsizedRatio`) are
  /// `outsizedBeat`, and so is the one after them: the movement goes on past its largest swing and places the next beat
  /// too. Beyond `movementOnsetRatio` the interval before them is as well, unless a lost contact follows
  /// (`breakSegment`). A weak beat (`weakRatio`) widens the premature-pair test; a misshapen one (`misshapenBelow`)
  /// narrows what the intervals at it may swing.
  public mutating func addBeat(
    atSeconds seconds: Double, size: Double? = nil, shape: Double? = nil, _ emit: (InterBeatInterval) -> Void
  ) {
    let misshapen = Self.isMisshapen(shape)
    defer { lastBeatMisshapen = misshapen }
    let (ratio, outsized) = size.map { judgeSize($0) } ?? (nil, false)
    let weak = (ratio ?? 1) < Self.weakRatio
    let setAside = outsized || outsizedIntervalsLeft > 0
    outsizedIntervalsLeft = outsized ? 2 : max(0, outsizedIntervalsLeft - 1)
    if outsized, (ratio ?? 0) > Self.movementOnsetRatio, let newest = waiting.last, newest.end == lastBeat {
      waiting[waiting.count - 1].marks.insert(.movementOnset)
    }
    defer { lastBeat = seconds }
    guard let previous = lastBeat, seconds > previous else { return }
    var marks: Marks = []
    if setAside { marks.insert(.outsized) }
    if weak { marks.insert(.weakEnd) }
    if nextIsOffRhythm { marks.insert(.offRhythm) }
    if lastBeatMisshapen { marks.insert(.misshapenStart) }
    if misshapen { marks.insert(.misshapenEnd) }
    waiting.append(Waiting(start: previous, end: seconds, marks: marks))
    nextIsOffRhythm = false
    while waiting.count > Self.lookAhead { judgeNext(emit) }
  }

  /// The last beat was a false one and the real one is at `seconds`, of `shape` (as `addBeat`'s; the detector
  /// replaced it): the interval waiting for its verdict that ended at it now ends here. Nothing judged changes (an
  /// interval is judged only once `lookAhead` more beats have come).
  public mutating func replaceLastBeat(atSeconds seconds: Double, shape: Double? = nil) {
    guard let last = lastBeat, seconds > last else { return }
    let misshapen = Self.isMisshapen(shape)
    if let newest = waiting.last, newest.end == last {
      guard seconds > newest.start else { return }
      waiting[waiting.count - 1].end = seconds
      waiting[waiting.count - 1].marks.remove(.misshapenEnd)
      if misshapen { waiting[waiting.count - 1].marks.insert(.misshapenEnd) }
    }
    lastBeat = seconds
    lastBeatMisshapen = misshapen
  }

  /// The detector found the rhythm clearly irregular at the last beat while the pulse stayed clean: premature beats or
  /// AF, not a gap. The segment goes on (breaking it would drop the early beat's short interval and leave its pause
  /// without the pattern that explains it), but the interval the next beat closes is not clean on its own: as part of
  /// a pattern it takes the pattern's verdict, else it is `irregular`. (Motion often begins the same way; there the
  /// next interval is the movement's.)
  public mutating func noteIrregularRhythm() {
    if lastBeat != nil { nextIsOffRhythm = true }
  }

  /// A gap or a detector restart: judges what waits, and the next beat starts a new segment. `contactLostAtSeconds`:
  /// the restart is a lost contact (a lifted finger, saturated light) found from there; the intervals ending less
  /// than `contactEdgeSeconds` before it are `contactLost`, not judged. An outsized beat in that edge is the light's
  /// fall, not a movement's largest swing: the interval before it is judged, not set aside as the movement's onset.
  public mutating func breakSegment(contactLostAtSeconds lost: Double? = nil, _ emit: (InterBeatInterval) -> Void) {
    if let lost {
      for k in waiting.indices.dropLast() where waiting[k + 1].end >= lost - Self.contactEdgeSeconds {
        waiting[k].marks.remove(.movementOnset)
      }
    }
    while let first = waiting.first {
      judgeNext(emit, contactLost: lost.map { first.end >= $0 - Self.contactEdgeSeconds } ?? false)
    }
    clean.removeAll()
    judgedPlausible.removeAll()
    lastWasClean = false
    pairedVerdict = nil
    lastBeat = nil
    nextIsOffRhythm = false
    outsizedIntervalsLeft = 0
    segment += 1
  }

  /// A beat's size over the median of the recent ones (nil until there are `sizeHistory`), and whether it is
  /// outsized (`outsizedRatio`, `outsizedOverLargest`); remembers it unless outsized.
  private mutating func judgeSize(_ size: Double) -> (ratio: Double?, outsized: Bool) {
    var ratio: Double?
    var outsized = false
    if sizes.count == Self.sizeHistory, let median = sizes.median, let largest = sizes.largest, median > 0 {
      ratio = size / median
      outsized = size > Self.outsizedRatio * median && size > Self.outsizedOverLargest * largest
    }
    if !outsized { sizes.push(size) }
    return (ratio, outsized)
  }

  /// The end of the stream.
  public mutating func finish(_ emit: (InterBeatInterval) -> Void) {
    breakSegment(emit)
  }

  // MARK: - Private

  private func milliseconds(_ k: Int) -> Double { (waiting[k].end - waiting[k].start) * 1000 }

  private func isPlausible(_ ms: Double) -> Bool { configuration.plausibleMilliseconds.contains(ms) }

  /// Whether an interval not yet judged clean may set the reference: plausible, and not shorter than
  /// `referenceFloorMilliseconds` (false beats in noise are short; a fast heart's own intervals enter the
  /// reference once judged clean).
  private func isReferenceCandidate(_ ms: Double) -> Bool {
    isPlausible(ms) && ms >= configuration.referenceFloorMilliseconds
  }

  /// Judges the oldest waiting interval and emits it; `contactLost`: it ended just before a lost contact and is set
  /// aside unless motion already set it aside.
  private mutating func judgeNext(_ emit: (InterBeatInterval) -> Void, contactLost: Bool = false) {
    let x = milliseconds(0)
    let verdict: InterBeatInterval.Verdict
    let motion = !waiting[0].marks.isDisjoint(with: .motion)
    if motion || contactLost {
      // Motion or the light's fall: neither a reference nor a pattern's part.
      verdict = motion ? .outsizedBeat : .contactLost
      pairedVerdict = nil
    } else if let paired = pairedVerdict {
      verdict = paired
      pairedVerdict = nil
    } else {
      verdict = classify(x)
    }
    let interval = waiting.removeFirst()
    if isReferenceCandidate(x) { judgedPlausible.push(x) }
    lastWasClean = verdict == .clean
    if verdict == .clean { cleanCount += 1 } else { rejectedCount += 1 }
    emit(InterBeatInterval(startSeconds: interval.start, endSeconds: interval.end, verdict: verdict, segment: segment))
  }

  /// The verdict on the oldest waiting interval (`x` ms); sets `pairedVerdict` when its successor is part of
  /// the same artefact.
  private mutating func classify(_ x: Double) -> InterBeatInterval.Verdict {
    guard let m = reference(), m > 0 else { return isPlausible(x) ? .unverified : .implausible }
    let a = x / m
    let b: Double? = waiting.count > 1 ? milliseconds(1) / m : nil
    // The thresholds follow the last 60 clean intervals, whose spreads are kept sorted; they are recomputed every
    // eighth verdict, which is as good as every verdict.
    if thresholdAge == 0 {
      deviationThreshold = threshold(
        deviations, multiplier: configuration.spreadMultiplier, range: configuration.deviationRange)
      jumpThreshold = threshold(jumps, multiplier: configuration.jumpMultiplier, range: configuration.jumpRange)
    }
    thresholdAge = (thresholdAge + 1) & (Self.thresholdRefresh - 1)
    let d = deviationThreshold
    let jump = jumpThreshold
    let tolerance = configuration.patternTolerance
    let previousClean = lastWasClean ? newestClean() : nil
    // Two normal intervals around here: the clean one before and the one after the pair, else 2m.
    var pairSum = 2.0
    // The interval after the pair, in reference intervals (nil at a segment's end), and the same when it is steady:
    // plausible and not far off.
    let c: Double? = waiting.count > 2 ? milliseconds(2) / m : nil
    let steadyNext = steady(2, m: m, d: d)
    if let previousClean, let steadyNext { pairSum = previousClean / m + steadyNext }
    var verdict = InterBeatInterval.Verdict.clean
    var pairs = false
    if let b, shortPairSumsToOne(a, b, d: d) || splitByFragment(a, b, c, steadyNext: steadyNext, d: d) {
      verdict = .extraBeat
      pairs = true
    } else if !isPlausible(x) {
      verdict = .implausible
    } else if abs(a - 2) < tolerance || abs(a - 3) < 1.5 * tolerance {
      verdict = .missedBeat
    } else if let b, a < 1 - d, b > 1.5, a + b > 2.5, abs(a + b - (a + b).rounded()) < tolerance {
      // A beat found early and the next one missed: the two span a whole number of intervals.
      verdict = .misplacedBeat
      pairs = true
    } else if let b, a < 1 - d / 2, b > 1 + d / 2, b - a > jump,
      min(abs(a + b - pairSum), abs(a + b - 2))
        < (waiting[0].marks.contains(.weakEnd) ? Self.weakPairTolerance : 1) * tolerance,
      // The interval after the pause is not long (a respiratory swing stays long), unless the jump is more than a
      // breath makes from one beat to the next.
      (c ?? 1) <= 1 + d || b - a > 1.5 * jump
    {
      verdict = .prematureBeat
      pairs = true
    } else if let b, a < 1 - d, abs(b - 1) < min(tolerance, d), b - a > 0.6 * jump {
      verdict = .prematureBeat
      pairs = true
    } else if let b, let p = previousClean.map({ $0 / m }), a < 1 - d / 2, p - a > 0.1, b - a > 0.1,
      (p + b) / 2 - a > 0.65 * jump
    {
      verdict = .prematureBeat
      pairs = true
    } else if let b, let c, let p = previousClean.map({ $0 / m }), jumpIsTelling,
      pauseAfterLateEarlyBeat(p: p, a, b, c, d: d, jump: jump)
    {
      verdict = .prematureBeat
      pairs = true
    } else if let b, a > 1 + d / 2, b < 1 - d / 2, a - b > jump, abs(a + b - pairSum) < tolerance,
      !startsArtefact(
        b, c, after: waiting.count > 3 ? milliseconds(3) / m : nil, steadyAfter: steady(3, m: m, d: d), d: d,
        jump: jump)
    {
      verdict = .misplacedBeat
      pairs = true
    } else if isFarOff(a, d: d) && !slowsAfterSinus(a, previousMs: previousClean, m: m)
      || waiting[0].marks.contains(.offRhythm)
      || !waiting[0].marks.isDisjoint(with: .misshapen) && abs(a - 1) > Self.misshapenOffByD * d
    {
      verdict = .irregular
    }
    if pairs { pairedVerdict = verdict }
    if verdict == .clean {
      if let previousClean { jumps.push(abs(x - previousClean) / m) }
      clean.push(x)
      deviations.push(abs(a - 1))
    }
    return verdict
  }

  private func newestClean() -> Double? { clean.newest }

  /// Whether D tells a spike from this heart's own beat-to-beat changes: learned from enough clean intervals, and
  /// below its cap (where the cap holds it, the heart's changes may reach it: AF, a very variable heart).
  private var jumpIsTelling: Bool {
    jumps.count >= Self.spreadMinimumCount && jumpThreshold < configuration.jumpRange.upperBound
  }

  /// Waiting interval `k` in reference intervals when it is steady (plausible and not far off); nil otherwise or when
  /// there is none.
  private func steady(_ k: Int, m: Double, d: Double) -> Double? {
    guard k < waiting.count, isPlausible(milliseconds(k)) else { return nil }
    let relative = milliseconds(k) / m
    return isFarOff(relative, d: d) ? nil : relative
  }

  /// The median of the last clean intervals and the plausible ones two to four ahead; where these are too
  /// few (a segment's start or end), of any plausible neighbours. Nil when even those are too few.
  private mutating func reference() -> Double? {
    var n = clean.copyNewest(Self.leftReference, to: &scratch, at: 0)
    n = appendPlausibleWaiting(from: 2, to: n)
    if n < Self.minimumReference {
      n = judgedPlausible.copyNewest(Self.leftFallback, to: &scratch, at: 0)
      n = appendPlausibleWaiting(from: 1, to: n)
      guard n >= Self.minimumReference else { return nil }
    }
    return Statistics.medianInPlace(&scratch, count: n)
  }

  /// Appends the plausible waiting intervals from the `first`-th on to `scratch` after `count` values.
  private mutating func appendPlausibleWaiting(from first: Int, to count: Int) -> Int {
    var n = count
    var k = first
    while k < waiting.count {
      let ms = milliseconds(k)
      if isReferenceCandidate(ms) {
        scratch[n] = ms
        n += 1
      }
      k += 1
    }
    return n
  }

  /// d or D: `multiplier` × the robust spread of `values` (a resting heart's until there are enough), kept in
  /// `range`.
  private func threshold(
    _ values: SortedRecentValues, multiplier: Double, range: ClosedRange<Double>
  ) -> Double {
    var spread = Self.defaultSpread
    if values.count >= Self.spreadMinimumCount {
      spread = Self.madToStandardDeviation * (values.median ?? Self.defaultSpread)
    }
    return min(range.upperBound, max(range.lowerBound, multiplier * spread))
  }
}
