/// One inter-beat interval and the cleaner's verdict on it.
public struct InterBeatInterval: Sendable, Equatable, Codable {
  /// Why an interval is or is not used for HRV. Only `clean` intervals are; the others name the artefact.
  public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// A normal-to-normal interval: used, however far real variability takes it.
    case clean
    /// Outside the plausible range (220-2500 ms by default: `IBICleaner.Configuration`).
    case implausible
    /// About two (or three) intervals long: the detector missed a beat.
    case missedBeat = "missed_beat"
    /// One of the two parts of an interval split by a false detection (they sum to about one interval).
    case extraBeat = "extra_beat"
    /// Either side of a premature (ectopic) beat: short then long summing to about two intervals
    /// (compensatory pause), or short then normal. Neither is a normal-to-normal interval.
    case prematureBeat = "premature_beat"
    /// Either side of a beat detected out of place (a beat hidden in a shoulder, found late): long then short
    /// summing to about two intervals.
    case misplacedBeat = "misplaced_beat"
    /// Far from its neighbours without any artefact's pattern: noise or motion.
    case irregular
    /// Too few plausible neighbours in its segment to judge it (a short stretch between gaps).
    case unverified
    /// Ends just before the finger left the sensor or the light saturated it: on raw intensity the light's fall
    /// looks like a pulse, so its end beat may be none.
    case contactLost = "contact_lost"
    /// Starts or ends at a beat several times the size of the recent ones, or follows such an interval: motion
    /// moved the light, so the beat's time is not the pulse's, whether or not a pulse was there.
    case outsizedBeat = "outsized_beat"
  }

  /// The beats that bound it, seconds on the stream timeline.
  public var startSeconds: Double
  public var endSeconds: Double
  public var verdict: Verdict
  /// Increases at every gap or detector restart: intervals never span one, and successive differences are
  /// only taken between adjacent clean intervals of the same segment.
  public var segment: Int

  public init(startSeconds: Double, endSeconds: Double, verdict: Verdict, segment: Int) {
    self.startSeconds = startSeconds
    self.endSeconds = endSeconds
    self.verdict = verdict
    self.segment = segment
  }

  public var milliseconds: Double { (endSeconds - startSeconds) * 1000 }
  public var isClean: Bool { verdict == .clean }
}

extension InterBeatInterval {
  /// Clean intervals (ms) grouped into runs of adjacent ones (same segment, each starting where the previous
  /// ended): the input `HRVMetrics(segmentsMs:)` wants, so successive differences never cross a gap or a
  /// rejected interval. `intervals` must be in time order.
  @inlinable
  public static func cleanRuns<C: Collection>(_ intervals: C) -> [[Double]] where C.Element == InterBeatInterval {
    var runs: [[Double]] = []
    var current: [Double] = []
    var previous: InterBeatInterval?
    for interval in intervals {
      let adjacent = interval.continuesCleanRun(after: previous)
      if !interval.isClean || !adjacent {
        if !current.isEmpty { runs.append(current) }
        current = []
      }
      if interval.isClean { current.append(interval.milliseconds) }
      previous = interval
    }
    if !current.isEmpty { runs.append(current) }
    return runs
  }

  /// Whether this interval, if clean, continues the run of clean intervals that `previous` (the interval before it
  /// in time order, any verdict) is part of: `previous` is clean, of the same segment, and ends where this starts.
  @inlinable
  public func continuesCleanRun(after previous: InterBeatInterval?) -> Bool {
    guard let previous else { return false }
    return previous.isClean && previous.segment == segment && previous.endSeconds == startSeconds
  }
}
