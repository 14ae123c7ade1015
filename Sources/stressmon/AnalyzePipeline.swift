import Analysis
import PulseDSP
import Signals

/// `stressmon analyze`'s three threads: one reads the CSV (`BlockSource`), one runs the beat detector
/// (`PulseDetection`), and the calling thread runs what follows it (`BeatChain`) and collects the events. Each
/// hands its work on in order through a bounded `ThreadPipe`, so the result is `PulseAnalyzer`'s, event for
/// event; on two cores a long 100 Hz recording is analysed in about half the time one thread takes.
enum AnalyzePipeline {
  /// Runs `analyzer` over the rest of `source`, the events to `sink` in stream order; returns the stream
  /// samples seen (lost ones included).
  static func run(
    _ analyzer: PulseAnalyzer, source: inout BlockSource, _ sink: (AnalysisEvent) -> Void
  ) throws -> Int64 {
    let stage = DetectionStage(source: source, detection: analyzer.detection)
    var chain = analyzer.chain
    let batches = ThreadPipe<DetectionBatch, any Error>(capacity: 16) { () throws -> DetectionBatch? in
      try stage.next()
    }
    batches.start()
    while let batch = try batches.next() { chain.consume(batch, sink) }
    batches.stop()
    let samples = stage.detection.detector.position
    chain.finish(position: samples, sink)
    source = stage.source
    return samples
  }
}

/// The detector's thread: its blocks and its detector. Touched by that thread alone from the pipe's start until
/// it is stopped, then by the caller again; hence `@unchecked Sendable`.
private final class DetectionStage: @unchecked Sendable {
  var source: BlockSource
  var detection: PulseDetection

  init(source: BlockSource, detection: PulseDetection) {
    self.source = source
    self.detection = detection
  }

  func next() throws -> DetectionBatch? {
    guard let block = try source.next() else { return nil }
    return block.channels[0].withUnsafeBufferPointer { detection.process(block: $0, gapBefore: block.gapBefore) }
  }
}

/// Blocks of the recording: first any look-ahead kept for polarity detection, then the rest read on a
/// thread of its own (`ThreadPipe`).
struct BlockSource {
  /// Samples per block read on the thread: 16 KiB, which malloc hands out again once the block is analysed.
  /// (Larger blocks were mapped afresh each time, and their page faults cost as much as parsing them.)
  static let blockSamples = 1 << 12

  let reader: RecordingReader
  var progress: ProgressBar
  private var buffered: [RecordingBlock] = []
  private var pipe: ThreadPipe<RecordingBlock, RecordingError>?

  init(reader: RecordingReader, progress: ProgressBar) {
    self.reader = reader
    self.progress = progress
  }

  mutating func next() throws -> RecordingBlock? {
    if !buffered.isEmpty { return buffered.removeFirst() }
    if pipe == nil {
      let reader = reader
      let started = ThreadPipe<RecordingBlock, RecordingError>(capacity: 16) { () throws(RecordingError) in
        try reader.nextBlock(maxSamples: Self.blockSamples)
      }
      started.start()
      pipe = started
    }
    let block = try AnalyzeCommand.recording { try pipe?.next() }
    if let block { progress.advance(by: block.count) }
    return block
  }

  /// Up to `samples` contiguous samples from the start (stopping at the first gap after some data), read
  /// ahead and kept for `next()`.
  mutating func peekContiguous(samples wanted: Int) throws -> [Int32] {
    var opening: [Int32] = []
    while opening.count < wanted {
      guard let block = try AnalyzeCommand.recording({ try reader.nextBlock() }) else { break }
      progress.advance(by: block.count)
      buffered.append(block)
      if block.gapBefore > 0 && !opening.isEmpty { break }
      opening += block.channels[0]
    }
    return opening
  }
}
