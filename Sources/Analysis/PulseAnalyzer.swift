import PulseDSP
import StressModel

/// The streaming analysis chain shared by `stressmon analyze` and the daemon: beat detector → IBI cleaner →
/// HRV windows → stress. Feed it blocks of contiguous samples with the number of samples lost before each
/// (the shape of a recording block or a sensor FIFO read); it reports beats, judged intervals, signal
/// quality changes and finished windows, in stream order, through a sink.
///
/// The same samples give the same beats, intervals, quality changes and windows however they are cut into
/// blocks (tested with blocks of 1, 7 and 4096 samples): a live run and a replay of its recording agree
/// exactly. Only the moment a window is reported depends on the blocks: it comes after the block in which it
/// became final.
///
/// Time: stream seconds = stream sample index / rate, where the index counts lost samples too, so it lines up
/// with a recording's rows.
public struct PulseAnalyzer: Sendable {
  /// Settings beyond the rate and polarity.
  public struct Configuration: Sendable, Equatable {
    /// Flat threshold, "no finger" DC level, rails and minimum pulse size of the detector (the rate and
    /// polarity given to `PulseAnalyzer.init` override the template's).
    public var detector: BeatDetectorConfiguration
    public var cleaner: IBICleaner.Configuration
    public var windows: HRVWindowConfiguration

    public init(
      detector: BeatDetectorConfiguration = BeatDetectorConfiguration(sampleRateHz: 100),
      cleaner: IBICleaner.Configuration = IBICleaner.Configuration(),
      windows: HRVWindowConfiguration = HRVWindowConfiguration()
    ) {
      self.detector = detector
      self.cleaner = cleaner
      self.windows = windows
    }
  }

  // MARK: - Properties

  public let rateHz: Double
  public private(set) var detector: BeatDetector
  public private(set) var cleaner: IBICleaner
  public private(set) var windowing: HRVWindowing
  /// Beats found so far.
  public private(set) var beatCount = 0
  /// Stream samples seen so far (lost ones included).
  public var streamSamples: Int64 { detector.position }

  /// How far behind the input events can come (beats, raw-monitor quality changes): windows wait for it.
  private var reportDelaySeconds: Double
  private var started = false

  // MARK: - Initialization

  public init(
    rateHz: Double, polarity: PulsePolarity = .normal, configuration: Configuration = Configuration(),
    baseline: PersonalBaseline = .default
  ) throws(BeatDetectorError) {
    var detectorConfiguration = configuration.detector
    detectorConfiguration.sampleRateHz = rateHz
    detectorConfiguration.polarity = polarity
    detector = try BeatDetector(configuration: detectorConfiguration)
    self.rateHz = rateHz
    cleaner = IBICleaner(configuration: configuration.cleaner)
    windowing = HRVWindowing(configuration: configuration.windows, baseline: baseline)
    reportDelaySeconds = Double(detector.maximumReportDelaySamples) / rateHz
  }

  // MARK: - Public

  /// The baseline new windows are scored against (the daemon sets it when it recomputes one).
  public var baseline: PersonalBaseline {
    get { windowing.baseline }
    set { windowing.baseline = newValue }
  }

  /// Processes one block of contiguous samples that follows `gapBefore` lost samples.
  public mutating func process(
    block: UnsafeBufferPointer<Int32>, gapBefore: Int = 0, _ sink: (AnalysisEvent) -> Void
  ) {
    if gapBefore > 0 {
      let at = seconds(detector.position)
      detector.reset(gap: gapBefore)
      breakSegment(sink)
      // The lost stretch has no beats; after it the detector settles afresh.
      windowing.setSignalState(.insufficientBeats, atSeconds: at)
      windowing.setSignalState(Self.windowState(detector.quality), atSeconds: seconds(detector.position))
      sink(.gap(samples: gapBefore, atSeconds: at))
    }
    if !started {
      started = true
      sink(.quality(detector.quality, atSeconds: seconds(detector.position)))
    }
    // The detector's events update the rest of the chain while it runs: `handle` touches only the other
    // stored properties, so the accesses are disjoint. (A local copy of the detector would share its energy
    // buffer and copy it on every call: an allocation per FIFO read.)
    let rate = rateHz
    detector.process(block) { event in
      Self.handle(event, rateHz: rate, beatCount: &beatCount, cleaner: &cleaner, windowing: &windowing, sink)
    }
    emitReadyWindows(sink)
  }

  /// Processes an array block (convenience for callers holding arrays).
  public mutating func process(block: [Int32], gapBefore: Int = 0, _ sink: (AnalysisEvent) -> Void) {
    block.withUnsafeBufferPointer { process(block: $0, gapBefore: gapBefore, sink) }
  }

  /// The same, collecting the events (allocates; for tests and simple callers).
  public mutating func process(block: [Int32], gapBefore: Int = 0) -> [AnalysisEvent] {
    var events: [AnalysisEvent] = []
    process(block: block, gapBefore: gapBefore) { events.append($0) }
    return events
  }

  /// The end of the stream: judges the intervals still waiting and emits every window that ended.
  public mutating func finish(_ sink: (AnalysisEvent) -> Void) {
    breakSegment(sink)
    windowing.emitWindows(completeThrough: seconds(detector.position)) { sink(.window($0)) }
  }

  // MARK: - Private

  private func seconds(_ streamIndex: Int64) -> Double { Double(streamIndex) / rateHz }

  private static func handle(
    _ event: BeatDetectorEvent, rateHz: Double, beatCount: inout Int, cleaner: inout IBICleaner,
    windowing: inout HRVWindowing, _ sink: (AnalysisEvent) -> Void
  ) {
    switch event {
    case .beat(let beat):
      beatCount += 1
      let time = beat.position / rateHz
      sink(.beat(AnalysisBeat(beat: beat, seconds: time, latencySeconds: Double(beat.reportedAt) / rateHz - time)))
      // A beat recovered by search-back counts as a beat, but HRV does not lean on it: the detector turned it away
      // first, and a wrong one would make two plausible intervals out of one that the cleaner calls a missed beat.
      // The intervals stay as the cleaner would judge them without it.
      guard !beat.recovered else { return }
      if beat.replacesPrevious {
        cleaner.replaceLastBeat(atSeconds: time)
        return
      }
      cleaner.addBeat(atSeconds: time, size: Double(beat.amplitudeQ8)) { interval in
        windowing.add(interval)
        sink(.interval(interval))
      }
    case .quality(let quality, let at):
      let time = Double(at) / rateHz
      if quality != .good && quality != .clipped {
        // The detector restarted or stopped: the rhythm is broken there, never stitched across.
        let lost = quality == .noContact || quality == .saturated
        breakSegment(cleaner: &cleaner, windowing: &windowing, contactLostAt: lost ? time : nil, sink)
      }
      windowing.setSignalState(Self.windowState(quality), atSeconds: time)
      sink(.quality(quality, atSeconds: time))
    }
  }

  private mutating func breakSegment(_ sink: (AnalysisEvent) -> Void) {
    Self.breakSegment(cleaner: &cleaner, windowing: &windowing, sink)
  }

  private static func breakSegment(
    cleaner: inout IBICleaner, windowing: inout HRVWindowing, contactLostAt lost: Double? = nil,
    _ sink: (AnalysisEvent) -> Void
  ) {
    cleaner.breakSegment(contactLostAtSeconds: lost) { interval in
      windowing.add(interval)
      sink(.interval(interval))
    }
  }

  /// Windows whose end is past every event that could still be reported and every interval still waiting.
  /// Their content is then final, whatever the block sizes; only when they come out depends on them.
  private mutating func emitReadyWindows(_ sink: (AnalysisEvent) -> Void) {
    var complete = seconds(detector.position) - reportDelaySeconds
    if let waiting = cleaner.earliestUndecidedEndSeconds { complete = min(complete, waiting) }
    // A beat search-back may still recover lies after the last beat.
    if let pending = detector.recoveryPendingAfter { complete = min(complete, seconds(pending)) }
    windowing.emitWindows(completeThrough: complete) { sink(.window($0)) }
  }

  /// How a detector state counts in a window.
  static func windowState(_ quality: SignalQuality) -> WindowQuality {
    switch quality {
    case .good, .settling: .good
    case .noContact: .noContact
    case .saturated, .clipped: .saturated
    case .poorSignal: .poorSignal
    }
  }
}
