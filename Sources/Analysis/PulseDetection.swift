import PulseDSP

/// What the beat detector made of one block: its events and where the stream stood around them. The first half
/// of `PulseAnalyzer` hands it to the second (`BeatChain`), either at once (the daemon, tests) or through a
/// queue to another thread (`stressmon analyze`, where the two halves share a long recording's work).
public struct DetectionBatch: Sendable {
  /// Samples lost before the block (0 when none), and the stream position at which they were lost.
  public var gapBefore = 0
  public var gapAt: Int64 = 0
  /// The detector's state and stream position as the block began (after the restart a gap causes).
  public var startQuality = SignalQuality.settling
  public var startPosition: Int64 = 0
  /// The detector's events in the block, in order.
  public var events: [BeatDetectorEvent] = []
  /// The stream position after the block, and the sample after which search-back may still recover a beat.
  public var endPosition: Int64 = 0
  public var recoveryPendingAfter: Int64?

  public init() {}
}

/// The first half of `PulseAnalyzer`: the fixed-point beat detector, block by block, restarting after gaps.
public struct PulseDetection: Sendable {
  public private(set) var detector: BeatDetector

  public init(configuration: BeatDetectorConfiguration) throws(BeatDetectorError) {
    detector = try BeatDetector(configuration: configuration)
  }

  /// Runs one block of contiguous samples that follows `gapBefore` lost samples, writing what happened into
  /// `batch` (its event buffer is reused: nothing is allocated once it has grown to a block's events).
  public mutating func process(
    block: UnsafeBufferPointer<Int32>, gapBefore: Int = 0, into batch: inout DetectionBatch
  ) {
    batch.gapBefore = gapBefore
    batch.gapAt = detector.position
    if gapBefore > 0 { detector.reset(gap: gapBefore) }
    batch.startQuality = detector.quality
    batch.startPosition = detector.position
    batch.events.removeAll(keepingCapacity: true)
    detector.process(block) { batch.events.append($0) }
    batch.endPosition = detector.position
    batch.recoveryPendingAfter = detector.recoveryPendingAfter
  }

  /// The same into a new batch (for a queue to another thread).
  public mutating func process(block: UnsafeBufferPointer<Int32>, gapBefore: Int = 0) -> DetectionBatch {
    var batch = DetectionBatch()
    process(block: block, gapBefore: gapBefore, into: &batch)
    return batch
  }
}
