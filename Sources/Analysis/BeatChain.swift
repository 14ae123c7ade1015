import PulseDSP
import StressModel

/// The second half of `PulseAnalyzer`: what follows the beat detector. It takes the detector's batches
/// (`DetectionBatch`) in stream order and runs the IBI cleaner, the HRV windows and the stress score, reporting
/// beats, judged intervals, signal quality changes and finished windows through a sink.
public struct BeatChain: Sendable {
  public let rateHz: Double
  public private(set) var cleaner: IBICleaner
  public private(set) var windowing: HRVWindowing
  /// Beats found so far.
  public private(set) var beatCount = 0

  /// How far behind the input events can come (beats, raw-monitor quality changes): windows wait for it.
  private let reportDelaySeconds: Double
  private var started = false
  /// When the detector's current `settling` began (nil in any other state), and whether the windows already count it
  /// as poor signal (`longestSettlingSeconds`).
  private var settlingSince: Double?
  private var settlingCalledPoor = false

  /// A detector settles for a few beats after a start or a restart: two intervals in a row on one rhythm make its
  /// signal good (`BeatDetector.updateQualityFromRhythm`), which a pulse gives within about five seconds, at 40 bpm
  /// too.
  /// One still settling this long after it began has found no steady rhythm in what it takes for beats: noise at
  /// about the pulse's size (the beats are there, their times and the intervals between them are doubtful). From then
  /// on the windows count it as poor signal, as they do a rhythm lost after it was good.
  public static let longestSettlingSeconds = 15.0

  /// `reportDelaySamples`: the detector's `maximumReportDelaySamples`.
  public init(
    rateHz: Double, reportDelaySamples: Int, cleaner: IBICleaner.Configuration, windows: HRVWindowConfiguration,
    baseline: PersonalBaseline
  ) {
    self.rateHz = rateHz
    self.cleaner = IBICleaner(configuration: cleaner)
    windowing = HRVWindowing(configuration: windows, baseline: baseline)
    reportDelaySeconds = Double(reportDelaySamples) / rateHz
  }

  /// The baseline new windows are scored against.
  public var baseline: PersonalBaseline {
    get { windowing.baseline }
    set { windowing.baseline = newValue }
  }

  /// Everything one block of the detector brought, then the windows that became final.
  public mutating func consume(_ batch: DetectionBatch, _ sink: (AnalysisEvent) -> Void) {
    if batch.gapBefore > 0 {
      let at = seconds(batch.gapAt)
      breakSegment(sink)
      // The lost stretch has no beats; after it the detector settles afresh.
      windowing.setSignalState(.insufficientBeats, atSeconds: at)
      windowing.setSignalState(PulseAnalyzer.windowState(batch.startQuality), atSeconds: seconds(batch.startPosition))
      sink(.gap(samples: batch.gapBefore, atSeconds: at))
    }
    if batch.gapBefore > 0 || !started { noteState(batch.startQuality, atSeconds: seconds(batch.startPosition)) }
    if !started {
      started = true
      sink(.quality(batch.startQuality, atSeconds: seconds(batch.startPosition)))
    }
    for event in batch.events { handle(event, sink) }
    emitReadyWindows(position: batch.endPosition, recoveryPendingAfter: batch.recoveryPendingAfter, sink)
  }

  /// The end of the stream at `position`: judges the intervals still waiting and emits every window that ended.
  public mutating func finish(position: Int64, _ sink: (AnalysisEvent) -> Void) {
    breakSegment(sink)
    callLongSettlingPoor(through: seconds(position))
    windowing.emitWindows(completeThrough: seconds(position)) { sink(.window($0)) }
  }

  // MARK: - Private

  private func seconds(_ streamIndex: Int64) -> Double { Double(streamIndex) / rateHz }

  private mutating func handle(_ event: BeatDetectorEvent, _ sink: (AnalysisEvent) -> Void) {
    switch event {
    case .beat(let beat):
      beatCount += 1
      let time = beat.position / rateHz
      sink(.beat(AnalysisBeat(beat: beat, seconds: time, latencySeconds: Double(beat.reportedAt) / rateHz - time)))
      // A beat recovered by search-back counts as a beat, but HRV does not lean on it: the detector turned it away
      // first, and a wrong one would make two plausible intervals out of one that the cleaner calls a missed beat.
      // The intervals stay as the cleaner would judge them without it.
      guard !beat.recovered else { return }
      // A beat that replaces the one before is noted beside it: the false beat the detector took first is itself
      // evidence of noise for the windows (counting it once took the set's noisy windows uncategorised 92.8 → 90.8 %).
      windowing.noteBeat(atSeconds: time, extraPeaks: Int(beat.extraPeaks), shapeQ8: Int(beat.shapeQ8))
      let shape = beat.shapeQ8 >= 0 ? Double(beat.shapeQ8) / 256 : nil
      if beat.replacesPrevious {
        cleaner.replaceLastBeat(atSeconds: time, shape: shape)
        return
      }
      cleaner.addBeat(atSeconds: time, size: Double(beat.amplitudeQ8), shape: shape) { interval in
        windowing.add(interval)
        sink(.interval(interval))
      }
    case .quality(let quality, let at, let rhythmOnly):
      let time = Double(at) / rateHz
      if quality == .poorSignal && rhythmOnly {
        // Early beats on a clean pulse: the intervals go on, and their patterns tell the early beats apart.
        cleaner.noteIrregularRhythm()
      } else if quality != .good && quality != .clipped {
        // The detector restarted or stopped, or noise or motion rides on the pulse: the rhythm is broken there, never
        // stitched across.
        let lost = quality == .noContact || quality == .saturated
        breakSegment(contactLostAt: lost ? time : nil, sink)
      }
      windowing.setSignalState(PulseAnalyzer.windowState(quality), atSeconds: time)
      noteState(quality, atSeconds: time)
      sink(.quality(quality, atSeconds: time, rhythmOnly: rhythmOnly))
    }
  }

  private mutating func breakSegment(contactLostAt lost: Double? = nil, _ sink: (AnalysisEvent) -> Void) {
    cleaner.breakSegment(contactLostAtSeconds: lost) { interval in
      windowing.add(interval)
      sink(.interval(interval))
    }
  }

  /// Windows whose end is past every event that could still be reported and every interval still waiting.
  /// Their content is then final, whatever the block sizes; only when they come out depends on them.
  private mutating func emitReadyWindows(
    position: Int64, recoveryPendingAfter pending: Int64?, _ sink: (AnalysisEvent) -> Void
  ) {
    var complete = seconds(position) - reportDelaySeconds
    if let waiting = cleaner.earliestUndecidedEndSeconds { complete = min(complete, waiting) }
    // A beat search-back may still recover lies after the last beat.
    if let pending { complete = min(complete, seconds(pending)) }
    callLongSettlingPoor(through: complete)
    windowing.emitWindows(completeThrough: complete) { sink(.window($0)) }
  }

  /// The detector is in `quality` from `seconds` on.
  private mutating func noteState(_ quality: SignalQuality, atSeconds seconds: Double) {
    settlingSince = quality == .settling ? seconds : nil
    settlingCalledPoor = false
  }

  /// Every state change up to `seconds` has been reported: a settling that has lasted `longestSettlingSeconds` by then
  /// counts as poor signal from that moment.
  private mutating func callLongSettlingPoor(through seconds: Double) {
    guard let since = settlingSince, !settlingCalledPoor, seconds >= since + Self.longestSettlingSeconds else { return }
    settlingCalledPoor = true
    windowing.setSignalState(.poorSignal, atSeconds: since + Self.longestSettlingSeconds)
  }
}
