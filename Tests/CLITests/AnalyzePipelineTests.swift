import Analysis
import Foundation
import PulseDSP
import Signals
import TestSupport
import Testing

@testable import stressmon

@Suite("analyze's threads")
struct AnalyzePipelineTests {
  private struct Failed: Error, Equatable { var at: Int }

  @Test("A thread pipe hands every item over in order through a small queue, then the end")
  func pipeKeepsOrder() throws {
    var made = 0
    let pipe = ThreadPipe<Int, Never>(capacity: 2) { () -> Int? in
      guard made < 5_000 else { return nil }
      made += 1
      return made
    }
    pipe.start()
    var got: [Int] = []
    while let item = pipe.next() { got.append(item) }
    #expect(got == Array(1...5_000))
    #expect(pipe.next() == nil)
  }

  @Test("Producer and consumer each wait in turn, through queues of 5 and 16, and nothing is lost or stuck")
  func pipeWakesBothSides() {
    for capacity in [5, 16] {
      // Bursts: the producer or the consumer pauses now and then, so each finds the queue full or empty and
      // must be woken by the other.
      var made = 0
      let pipe = ThreadPipe<Int, Never>(capacity: capacity) { () -> Int? in
        guard made < 3_000 else { return nil }
        made += 1
        if made % 97 == 0 { usleep(2_000) }
        return made
      }
      pipe.start()
      var got: [Int] = []
      while let item = pipe.next() {
        got.append(item)
        if item % 89 == 0 { usleep(2_000) }
      }
      #expect(got == Array(1...3_000), "capacity \(capacity)")
    }
  }

  @Test("An error from the producer comes out after the items made before it")
  func pipeRethrowsInPlace() {
    var made = 0
    let pipe = ThreadPipe<Int, Failed>(capacity: 3) { () throws(Failed) -> Int? in
      made += 1
      if made == 40 { throw Failed(at: made) }
      return made
    }
    pipe.start()
    var got: [Int] = []
    #expect(throws: Failed(at: 40)) {
      while let item = try pipe.next() { got.append(item) }
    }
    #expect(got == Array(1...39))
  }

  @Test("Stopping early ends the producer that waits on a full queue, and nothing more is made")
  func pipeStopsEarly() {
    let made = Counter()
    let pipe = ThreadPipe<Int, Never>(capacity: 4) { () -> Int? in made.add() }
    pipe.start()
    #expect(pipe.next() == 1)
    pipe.stop()
    let after = made.value
    // Room for the queue (4) and the item in hand when the queue filled.
    #expect(after <= 6)
    #expect(made.value == after)
  }

  @Test("The three-thread analysis of a recording gives PulseAnalyzer's events, one for one")
  func pipelineEqualsAnalyzer() throws {
    let path = SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv"
    let whole = try RecordingReader(path: path, channels: nil)
    let rate = try #require(whole.sidecar?.fs)
    let polarity = whole.sidecar?.polarity ?? .normal
    var analyzer = try PulseAnalyzer(rateHz: rate, polarity: polarity)
    var expected: [AnalysisEvent] = []
    // In the blocks the pipeline reads (when a window is reported depends on them).
    while let block = try whole.nextBlock(maxSamples: BlockSource.blockSamples) {
      analyzer.process(block: block.channels[0], gapBefore: block.gapBefore) { expected.append($0) }
    }
    analyzer.finish { expected.append($0) }

    let progress = ProgressBar(path: path, estimatedRows: nil, enabled: false)
    var source = BlockSource(reader: try RecordingReader(path: path, channels: nil), progress: progress)
    var events: [AnalysisEvent] = []
    let samples = try AnalyzePipeline.run(try PulseAnalyzer(rateHz: rate, polarity: polarity), source: &source) {
      events.append($0)
    }
    #expect(samples == analyzer.streamSamples)
    #expect(samples > Int64(20 * BlockSource.blockSamples), "the recording spans many blocks")
    #expect(events.count { if case .beat = $0 { true } else { false } } > 100)
    #expect(events.count { if case .window = $0 { true } else { false } } >= 4)
    #expect(events == expected)
  }
}

/// Items made so far, from the producer thread, read from the test's.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func add() -> Int {
    lock.lock()
    defer { lock.unlock() }
    count += 1
    return count
  }
  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
}
