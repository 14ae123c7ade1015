import PulseDSP
import StressModel

/// Everything a whole-recording analysis produced, collected from `PulseAnalyzer`'s events (what
/// `stressmon analyze` prints). Memory grows with the recording: for files, not for the daemon.
public struct AnalysisRecord: Sendable {
  // MARK: - Properties

  /// Beats in stream order, as the detector reported them.
  public private(set) var beats: [AnalysisBeat] = []
  /// For each of `beats`: a false detection, shown by the IBI cleaner's patterns and the beats' sizes (below) or
  /// replaced by the detector (`DetectedBeat.replacesPrevious`).
  public private(set) var isArtefact: [Bool] = []
  /// Every judged interval in stream order.
  public private(set) var intervals: [InterBeatInterval] = []
  /// Finished windows in order.
  public private(set) var windows: [HRVWindowSummary] = []
  /// Quality changes (state, stream seconds) in order; `rhythmOnly`: a poor signal the detector called for the
  /// rhythm alone, the pulse clean (`BeatDetectorEvent.quality`).
  public private(set) var qualityChanges: [(quality: SignalQuality, seconds: Double, rhythmOnly: Bool)] = []
  /// Lost samples reported by the source.
  public private(set) var lostSamples = 0

  public init() {}

  /// Room for a recording of about `seconds` with windows every `stepSeconds`, so that a long file's record is not
  /// copied (and its memory faulted in again) each time it doubles: beats and intervals for up to four a second.
  /// What is reserved and not used is never touched.
  public mutating func reserveCapacity(seconds: Double, stepSeconds: Double) {
    guard seconds.isFinite, seconds > 0, stepSeconds > 0 else { return }
    let beatCount = Int(min(seconds, Self.longestReservedSeconds) * 4)
    beats.reserveCapacity(beatCount)
    isArtefact.reserveCapacity(beatCount)
    intervals.reserveCapacity(beatCount)
    windows.reserveCapacity(Int(min(seconds, Self.longestReservedSeconds) / stepSeconds) + 2)
  }

  /// A day: beyond it the arrays grow as they fill.
  static let longestReservedSeconds = 86_400.0

  // MARK: - Public

  public mutating func add(_ event: AnalysisEvent) {
    switch event {
    case .beat(let beat):
      if beat.beat.replacesPrevious, let last = beats.indices.last(where: { !beats[$0].beat.recovered }) {
        isArtefact[last] = true
      }
      beats.append(beat)
      isArtefact.append(false)
    case .interval(let interval):
      if interval.verdict == .extraBeat, let previous = intervals.last, previous.verdict == .extraBeat,
        previous.endSeconds == interval.startSeconds
      {
        markExtraBeat(between: previous, and: interval)
      }
      if interval.verdict == .prematureBeat,
        intervals.last.map({ $0.verdict != .prematureBeat || $0.endSeconds != interval.startSeconds }) ?? true
      {
        markFalseSinusBeat(startingPrematurePair: interval)
      }
      intervals.append(interval)
    case .window(let window): windows.append(window)
    case .quality(let quality, let seconds, let rhythmOnly):
      qualityChanges.append((quality, seconds, quality == .poorSignal && rhythmOnly))
    case .gap(let samples, _): lostSamples += samples
    }
  }

  /// The beats a reader of the recording should see: the detector's, without those the cleaner showed to be false
  /// (`isArtefact`).
  public var reportedBeats: [AnalysisBeat] {
    var reported: [AnalysisBeat] = []
    reported.reserveCapacity(beats.count - artefactCount)
    for (beat, artefact) in zip(beats, isArtefact) where !artefact { reported.append(beat) }
    return reported
  }

  /// Beats left out of `reportedBeats`.
  public var artefactCount: Int { isArtefact.count { $0 } }

  /// Clean intervals, ms, in order.
  public var cleanIntervalsMs: [Double] {
    var clean: [Double] = []
    clean.reserveCapacity(intervals.count - rejectedCount)
    for interval in intervals where interval.isClean { clean.append(interval.milliseconds) }
    return clean
  }

  /// Rejected intervals (implausible, irregular or unverified).
  public var rejectedCount: Int { intervals.count { !$0.isClean } }

  /// HRV of every clean interval of the recording, successive differences only within runs.
  public var overallHRV: HRVMetrics? { HRVMetrics(segmentsMs: InterBeatInterval.cleanRuns(intervals)) }

  // MARK: - Private

  /// `first` and `second` are the two halves of one interval split by an extra detection (the cleaner's
  /// `extraBeat` signature: they sum to about one interval). The beat between them is the false one if it is also
  /// weaker than the beats on either side: noise that passed the detector is smaller than the pulse, whereas in
  /// a fast irregular rhythm two short intervals in a row are real and their middle beat is not the weakest.
  /// In an irregular rhythm (AF) it often is: a short-coupled beat had less time to fill. Such a beat is kept
  /// where the pulse was clean (`cleanPulse`), it stands at least half as high as the smaller of its
  /// neighbours, and it rose with their stroke (`hasVentricularStroke`); noise on a good signal is smaller, or rises
  /// slowly. A beat early in the interval it splits (the interval after it the longer) had the least time to fill: a
  /// third as high will do. (Noise that passes the detector in good signal mostly lies late in the interval, on the
  /// next pulse's foot.)
  private mutating func markExtraBeat(between first: InterBeatInterval, and second: InterBeatInterval) {
    guard let start = beatIndex(at: first.startSeconds), let middle = beatIndex(at: first.endSeconds),
      let end = beatIndex(at: second.endSeconds)
    else { return }
    let before = beats[start].beat, beat = beats[middle].beat, after = beats[end].beat
    guard beat.amplitudeQ8 < before.amplitudeQ8 && beat.amplitudeQ8 < after.amplitudeQ8 else { return }
    let shareDivisor: Int64 = first.milliseconds < second.milliseconds ? 3 : 2
    let shortCoupled = cleanPulse(atSeconds: beats[middle].seconds)
      && beat.amplitudeQ8 &* shareDivisor >= min(before.amplitudeQ8, after.amplitudeQ8)
      && Self.hasVentricularStroke(beat, between: before, and: after)
    if !shortCoupled { isArtefact[middle] = true }
  }

  /// Whether `beat` rose as fast as its neighbours: its rise time (amplitude over steepest upslope) is no longer than
  /// the mean of theirs. A ventricle's stroke is short whatever the beat's size; a noise or motion bump rises slowly.
  /// (The detector asks the same of a candidate against its running references: `BeatDetector.hasSteepStroke`.)
  static func hasVentricularStroke(
    _ beat: DetectedBeat, between before: DetectedBeat, and after: DetectedBeat
  ) -> Bool {
    func riseTime(_ b: DetectedBeat) -> Double { Double(b.amplitudeQ8) / Double(max(1, b.upslopeQ8)) }
    return riseTime(beat) * 2 <= riseTime(before) + riseTime(after)
  }

  /// Whether the pulse was clean at `seconds`: the detector called the signal good, or poor for its rhythm alone.
  private func cleanPulse(atSeconds seconds: Double) -> Bool {
    guard let change = qualityChanges.last(where: { $0.seconds <= seconds }) else { return false }
    return change.quality == .good || change.rhythmOnly
  }

  /// `first` is the short interval of a premature-beat pair: the beat it starts from should be a sinus beat, as
  /// large as its neighbours (it is the beat that *ends* `first` that comes early and weak). A starting beat under
  /// half the smaller of its neighbours' amplitudes is a false detection that made the pattern: noise taken about
  /// where a beat was due, which turns the real pulse after it into a "premature" one. (On the evaluation set no
  /// true beat starting such a pair is under 0.6 of its neighbours; 20 false ones are under 0.5.)
  private mutating func markFalseSinusBeat(startingPrematurePair first: InterBeatInterval) {
    guard let start = beatIndex(at: first.startSeconds), start > 0, let end = beatIndex(at: first.endSeconds)
    else { return }
    let neighbours = min(beats[start - 1].beat.amplitudeQ8, beats[end].beat.amplitudeQ8)
    if beats[start].beat.amplitudeQ8 &* 2 < neighbours { isArtefact[start] = true }
  }

  /// The beat at exactly `seconds` (interval bounds are beat times), searched from the newest: intervals come at
  /// most a few beats after their end.
  private func beatIndex(at seconds: Double) -> Int? {
    var i = beats.count - 1
    while i >= 0 && beats[i].seconds > seconds { i -= 1 }
    return i >= 0 && beats[i].seconds == seconds ? i : nil
  }

  // MARK: - Figures

  /// Largest latency of a beat reported in real time, seconds (0 without beats). Beats recovered by search-back
  /// are reported with the beat that revealed them, an interval or two later, and are not counted here.
  public var maximumLatencySeconds: Double {
    beats.lazy.filter { !$0.beat.recovered }.map { $0.latencySeconds }.max() ?? 0
  }

  /// Beats found by search-back (`DetectedBeat.recovered`).
  public var recoveredCount: Int { beats.lazy.filter { $0.beat.recovered }.count }

  /// Share of the stream (of `durationSeconds`) spent in each detector state.
  public func qualityShares(durationSeconds: Double) -> [SignalQuality: Double] {
    var shares: [SignalQuality: Double] = [:]
    guard durationSeconds > 0 else { return shares }
    for (i, change) in qualityChanges.enumerated() {
      let end = i + 1 < qualityChanges.count ? qualityChanges[i + 1].seconds : durationSeconds
      let span = min(end, durationSeconds) - change.seconds
      if span > 0 { shares[change.quality, default: 0] += span / durationSeconds }
    }
    return shares
  }
}
