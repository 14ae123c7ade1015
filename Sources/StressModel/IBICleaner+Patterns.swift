/// The signatures `IBICleaner.classify` asks about beside the pattern tests it states itself: pure functions of
/// intervals in reference intervals (a = x/m, b, c after it) and the thresholds d and D.
extension IBICleaner {
  /// An interval waiting for its verdict, and what is known of the beats bounding it.
  struct Waiting {
    var start: Double
    var end: Double
    var marks: Marks
  }

  /// What an interval's beats were: a beat bounding it is outsized, or the beat after its end is a movement's largest
  /// swing (`movementOnsetRatio`); its end beat is weak; it follows the beat at which the rhythm was found irregular;
  /// its start or end beat is misshapen. (One byte rather than seven stored fields, so the waiting intervals stay small
  /// to move.)
  struct Marks: OptionSet {
    let rawValue: UInt8
    static let outsized = Marks(rawValue: 1)
    static let weakEnd = Marks(rawValue: 2)
    static let offRhythm = Marks(rawValue: 4)
    static let misshapenStart = Marks(rawValue: 8)
    static let misshapenEnd = Marks(rawValue: 16)
    static let movementOnset = Marks(rawValue: 32)
    /// Either end misshapen.
    static let misshapen: Marks = [.misshapenStart, .misshapenEnd]
    /// Set aside for motion (`outsizedBeat`).
    static let motion: Marks = [.outsized, .movementOnset]
  }

  /// Whether a beat of `shape` (r², nil when not known) is misshapen (`misshapenBelow`).
  static func isMisshapen(_ shape: Double?) -> Bool { (shape ?? 1) < misshapenBelow }

  /// Whether a long interval of `a` reference intervals (m ms), far off but under `slowingLimit`, is the heart slowing:
  /// the clean interval before it (`previousMs`) is at least the reference. A compensatory pause
  /// follows an early beat, whose interval is short however little; a lone slow beat of sinus rhythm comes after one
  /// already lengthening.
  func slowsAfterSinus(_ a: Double, previousMs: Double?, m: Double) -> Bool {
    guard let previousMs else { return false }
    return a > 1 && a < Self.slowingLimit && previousMs >= m
  }

  /// Whether an interval of `a` reference intervals is far off them without a pattern (`irregular`).
  func isFarOff(_ a: Double, d: Double) -> Bool { a < Self.farShortEdge(d) || a > 1 + 3 * d }

  /// The far-off band's short edge: below it no rhythm of this heart makes an interval (a fragment).
  static func farShortEdge(_ d: Double) -> Double { 1 - 2.5 * d }

  /// Whether a and b are both short (a beyond d, b beyond d/2) and sum to about one interval: a false detection split
  /// one.
  func shortPairSumsToOne(_ a: Double, _ b: Double, d: Double) -> Bool {
    a < 1 - d && b < 1 - d / 2 && abs(a + b - 1) < configuration.patternTolerance
  }

  /// Whether intervals a, b (in reference intervals) are one split by a false beat where one of them is a fragment no
  /// rhythm of this heart makes (far short, `isFarOff`) and the other is not long: their sum is about one interval,
  /// or about the steady interval after them (a false beat late in a long interval: as long as the breath's swing
  /// has made its successor). A fragment b may instead belong with c (b + c about one or two: an extra detection or
  /// a misplaced beat after a missed one); it goes with the side it fits better.
  func splitByFragment(_ a: Double, _ b: Double, _ c: Double?, steadyNext: Double?, d: Double) -> Bool {
    let fragment = Self.farShortEdge(d)
    let notLong = 1 + d / 2
    guard a < fragment && b < notLong || b < fragment && a < notLong else { return false }
    let sum = a + b
    let offOne = abs(sum - 1)
    let offNext = steadyNext.map { abs(sum - $0) } ?? .infinity
    guard min(offOne, 2 * offNext) < configuration.patternTolerance else { return false }
    guard a >= fragment, let c else { return true }
    return min(offOne, offNext) < min(abs(b + c - 1), abs(b + c - 2))
  }

  /// Whether intervals a, b (in reference intervals) are a beat early on an interval already long and its
  /// compensatory pause: a is no shorter than the heart's own swings, so the pair tests do not see it, but it is the
  /// floor of a V, below both p (the clean interval before) and c (the interval after the pair), and b is long and a
  /// spike, more than D (`jump`) above both a and c, though short of a missed beat (2 − τ: beats lost in a burst after
  /// a real interval are the missed-beat test's). Sinus rhythm neither climbs D in one beat from a trough nor falls D in
  /// the next; an early beat on a long interval does both, as its pause makes up the rest of two long intervals.
  /// `classify` asks it only where D tells a spike (`jumpIsTelling`: learned and below its cap; where the heart's own
  /// successive differences reach the cap, AF or a very variable heart, a spike of D proves nothing).
  func pauseAfterLateEarlyBeat(p: Double, _ a: Double, _ b: Double, _ c: Double, d: Double, jump: Double) -> Bool {
    a < min(p, c) && b > 1 + d / 2 && b < 2 - configuration.patternTolerance && b - a > jump && b - c > jump
  }

  /// Whether intervals b, c (in reference intervals) are an extra detection (by either signature `classify` asks:
  /// `shortPairSumsToOne`, `splitByFragment` with `after`, the interval after c, and `steadyAfter`, the same when
  /// steady) or a compensatory premature beat.
  func startsArtefact(
    _ b: Double, _ c: Double?, after: Double?, steadyAfter: Double?, d: Double, jump: Double
  ) -> Bool {
    guard let c else { return false }
    let premature = c > 1 + d / 2 && c - b > jump && abs(b + c - 2) < configuration.patternTolerance
    return shortPairSumsToOne(b, c, d: d) || splitByFragment(b, c, after, steadyNext: steadyAfter, d: d) || premature
  }
}
