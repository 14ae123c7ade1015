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
  /// The two halves: the detector, and what follows it. `stressmon analyze` runs them on two threads.
  public private(set) var detection: PulseDetection
  public private(set) var chain: BeatChain
  /// The detector's events of the block in hand (kept, so that its buffer is reused).
  private var batch = DetectionBatch()

  public var detector: BeatDetector { detection.detector }
  public var cleaner: IBICleaner { chain.cleaner }
  public var windowing: HRVWindowing { chain.windowing }
  /// Beats found so far.
  public var beatCount: Int { chain.beatCount }
  /// Stream samples seen so far (lost ones included).
  public var streamSamples: Int64 { detection.detector.position }

  // MARK: - Initialization

  public init(
    rateHz: Double, polarity: PulsePolarity = .normal, configuration: Configuration = Configuration(),
    baseline: PersonalBaseline = .default
  ) throws(BeatDetectorError) {
    var detectorConfiguration = configuration.detector
    detectorConfiguration.sampleRateHz = rateHz
    detectorConfiguration.polarity = polarity
    let detection = try PulseDetection(configuration: detectorConfiguration)
    let chain = BeatChain(
      rateHz: rateHz, reportDelaySamples: detection.detector.maximumReportDelaySamples,
      cleaner: configuration.cleaner, windows: configuration.windows, baseline: baseline)
    self.init(rateHz: rateHz, detection: detection, chain: chain)
  }

  /// The analyzer moved in whole from its built parts: assigned field by field after the throwing call, Embedded
  /// Swift copied the whole analyzer once, which cost flash on a microcontroller.
  private init(rateHz: Double, detection: consuming PulseDetection, chain: consuming BeatChain) {
    self.rateHz = rateHz
    self.detection = detection
    self.chain = chain
  }

  // MARK: - Public

  /// The baseline new windows are scored against (the daemon sets it when it recomputes one).
  public var baseline: PersonalBaseline {
    get { chain.baseline }
    set { chain.baseline = newValue }
  }

  /// Processes one block of contiguous samples that follows `gapBefore` lost samples.
  public mutating func process(
    block: UnsafeBufferPointer<Int32>, gapBefore: Int = 0, _ sink: (AnalysisEvent) -> Void
  ) {
    detection.process(block: block, gapBefore: gapBefore, into: &batch)
    chain.consume(batch, sink)
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
    chain.finish(position: streamSamples, sink)
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
