import Analysis
import EvaluationSet
import Foundation
import PulseDSP
import Signals
import StressModel
import Testing

@Suite("The streaming analysis chain on real recordings")
struct PulseAnalyzerTests {
  /// The recording's samples re-cut into blocks of `size`, keeping its gaps; `lose` drops that many samples
  /// from stream position `at` on (a FIFO overflow) and marks them as a gap.
  static func recut(_ blocks: [RecordingBlock], size: Int, lose: Int = 0, at: Int = .max) -> [RecordingBlock] {
    // Contiguous runs of the stream: (first stream position, samples).
    var runs: [(start: Int, samples: [Int32])] = []
    for block in blocks {
      if block.gapBefore > 0 || runs.isEmpty {
        runs.append((block.firstSampleIndex, block.channels[0]))
      } else {
        runs[runs.count - 1].samples += block.channels[0]
      }
    }
    if lose > 0, let k = runs.firstIndex(where: { $0.start < at && at < $0.start + $0.samples.count }) {
      let run = runs[k]
      let head = at - run.start
      let tail = Array(run.samples.dropFirst(head + lose))
      runs[k] = (run.start, Array(run.samples[..<head]))
      runs.insert((at + lose, tail), at: k + 1)
    }
    var out: [RecordingBlock] = []
    var end = 0
    for run in runs where !run.samples.isEmpty {
      var offset = 0
      while offset < run.samples.count {
        let stop = min(run.samples.count, offset + size)
        out.append(RecordingBlock(
          gapBefore: offset == 0 ? run.start - end : 0, firstSampleIndex: run.start + offset,
          channels: [Array(run.samples[offset..<stop])]))
        offset = stop
      }
      end = run.start + run.samples.count
    }
    return out
  }

  /// The events of one kind, in order.
  static func kinds(_ events: [AnalysisEvent]) -> [[AnalysisEvent]] {
    var beats: [AnalysisEvent] = [], intervals: [AnalysisEvent] = [], others: [AnalysisEvent] = []
    var windows: [AnalysisEvent] = []
    for event in events {
      switch event {
      case .beat: beats.append(event)
      case .interval: intervals.append(event)
      case .window: windows.append(event)
      case .quality, .gap: others.append(event)
      }
    }
    return [beats, intervals, windows, others]
  }

  @Test("Blocks of 1, 7 and 4096 samples give identical beats, intervals, windows and states, gaps included")
  func streamingEqualsWholeFile() throws {
    for (name, lose) in [("heartpy_data2", 0), ("bsn_hspo2_ch9", 300), ("pyphysio_medical", 1_000)] {
      let whole = try RecordingRun.run(name) { PulseAnalyzerTests.recut($0, size: 1 << 20, lose: lose, at: 31_000) }
      let reference = Self.kinds(whole.events)
      #expect(reference[0].count > 50 && !reference[2].isEmpty)
      for size in [1, 7, 4096] {
        let run = try RecordingRun.run(name) { PulseAnalyzerTests.recut($0, size: size, lose: lose, at: 31_000) }
        let kinds = Self.kinds(run.events)
        for (k, label) in ["beats", "intervals", "windows", "states"].enumerated() {
          #expect(kinds[k] == reference[k], "\(name) in blocks of \(size): \(label) differ (\(kinds[k].count) vs \(reference[k].count))")
        }
      }
    }
  }

  @Test("No interval spans a gap, and the chain restarts (settling) after one")
  func neverStitchesAGap() throws {
    let lost = 2_000
    let at = 30_000
    let run = try RecordingRun.run("bsn_bvp_rest") { PulseAnalyzerTests.recut($0, size: 4096, lose: lost, at: at) }
    let gapStart = Double(at) / run.rateHz
    let gapEnd = Double(at + lost) / run.rateHz
    #expect(run.record.lostSamples == lost)
    #expect(!run.record.intervals.contains { $0.startSeconds < gapEnd && $0.endSeconds > gapStart })
    let segments = Set(run.record.intervals.map(\.segment))
    #expect(segments.count >= 2)
    #expect(run.events.contains { if case .gap(let n, let t) = $0 { n == lost && abs(t - gapStart) < 1e-9 } else { false } })
  }

  @Test("Every recording gives plausible output: HR 35-200 bpm, scored windows only when good")
  func plausibleOnEveryRecording() throws {
    for name in RecordingRun.names {
      let run = try RecordingRun.run(name)
      let hrv = try #require(run.record.overallHRV, "\(name): no HRV")
      #expect((35...200).contains(hrv.meanHeartRateBpm), "\(name): \(hrv.meanHeartRateBpm) bpm")
      #expect(run.record.cleanIntervalsMs.allSatisfy { (300...2000).contains($0) })
      let expectedWindows = run.durationSeconds >= 60 ? Int((run.durationSeconds - 60) / 10) + 1 : 0
      #expect(run.record.windows.count == expectedWindows, "\(name): \(run.record.windows.count) windows")
      for window in run.record.windows {
        #expect((window.stress != nil) == (window.quality == .good), "\(name) \(window.startSeconds)")
        if let stress = window.stress {
          #expect((0...100).contains(stress.level))
          #expect((35...200).contains(stress.heartRateBpm))
        }
      }
    }
  }

  @Test("A finger lifted for 40 s: those windows are 'no contact' and unscored, the others scored")
  func fingerLifted() throws {
    // Given a clean recording with 40 s of a flat, dark channel in the middle
    let run = try RecordingRun.run("heartpy_data3") { blocks in
      blocks.map { block in
        var samples = block.channels[0]
        let rate = 100.41824437085899
        for i in samples.indices where (Double(block.firstSampleIndex + i) / rate) >= 200 && (Double(block.firstSampleIndex + i) / rate) < 240 {
          samples[i] = 7
        }
        return RecordingBlock(gapBefore: block.gapBefore, firstSampleIndex: block.firstSampleIndex, channels: [samples])
      }
    }
    let inside = run.record.windows.filter { $0.startSeconds >= 190 && $0.endSeconds <= 250 }
    #expect(inside.isEmpty == false)
    #expect(run.record.windows.filter { $0.startSeconds <= 200 && $0.endSeconds >= 240 }.allSatisfy { $0.quality == .noContact && $0.stress == nil })
    #expect(run.record.qualityChanges.contains { $0.quality == .noContact && abs($0.seconds - 200) < 1 })
    let clear = run.record.windows.filter { $0.endSeconds <= 195 || $0.startSeconds >= 245 }
    #expect(clear.filter { $0.quality == .good }.count * 10 >= clear.count * 9)
    // The intervals ending in the second before the contact was found lost are set aside, not judged: the light's
    // fall may have made their end beat.
    let lost = try #require(run.record.qualityChanges.first { $0.quality == .noContact && $0.seconds > 150 }).seconds
    let edge = run.record.intervals.filter {
      $0.endSeconds >= lost - IBICleaner.contactEdgeSeconds && $0.endSeconds <= lost + 0.5
    }
    #expect(!edge.isEmpty && edge.allSatisfy { $0.verdict == .contactLost })
    // (The recording has saturated stretches of its own: every interval set aside ends just before a lost contact.)
    let losses = run.record.qualityChanges.filter { $0.quality == .noContact || $0.quality == .saturated }.map(\.seconds)
    #expect(run.record.intervals.filter { $0.verdict == .contactLost }.allSatisfy { interval in
      losses.contains { interval.endSeconds >= $0 - IBICleaner.contactEdgeSeconds && interval.endSeconds <= $0 + 0.5 }
    })
  }

  @Test("A movement several times the pulse's size: the intervals at its beat are outsized_beat, and only those")
  func motionSpikeIsOutsized() throws {
    // Given a clean recording with a 0.3 s bump of 1500 counts (the pulse is a few hundred) at 150 s
    let rate = 100.41824437085899
    let run = try RecordingRun.run("heartpy_data3") { blocks in
      blocks.map { block in
        var samples = block.channels[0]
        for i in samples.indices {
          let t = Double(block.firstSampleIndex + i) / rate - 150
          if t >= 0 && t < 0.3 { samples[i] += Int32(750 * (1 - cos(2 * Double.pi * t / 0.3))) }
        }
        return RecordingBlock(gapBefore: block.gapBefore, firstSampleIndex: block.firstSampleIndex, channels: [samples])
      }
    }
    // Then: against the recording as it is (which has movements of its own), the bump's beat adds its two intervals
    // and the one after them, and nothing else.
    let plain = try RecordingRun.run("heartpy_data3")
    let before = Set(plain.record.intervals.filter { $0.verdict == .outsizedBeat }.map(\.endSeconds))
    let added = run.record.intervals.filter { $0.verdict == .outsizedBeat && !before.contains($0.endSeconds) }
    #expect(added.count == 3)
    #expect(added.allSatisfy { $0.endSeconds > 149.5 && $0.startSeconds < 152 })
  }

  @Test("A personal baseline changes the scores: a lower baseline HRV reads as less stress")
  func baselineIsInjected() throws {
    let defaultRun = try RecordingRun.run("heartpy_data3")
    let relaxedPerson = PersonalBaseline(hrvMs: 20, restingHeartRateBpm: 90, isPersonal: true, windowCount: 40, computedAt: 0)
    let personalRun = try RecordingRun.run("heartpy_data3", baseline: relaxedPerson)
    let a = defaultRun.record.windows.compactMap(\.stress)
    let b = personalRun.record.windows.compactMap(\.stress)
    #expect(a.count == b.count && !a.isEmpty)
    #expect(zip(a, b).allSatisfy { $0.level >= $1.level })
    #expect(b.allSatisfy { $0.baseline.isPersonal })
    #expect(a.allSatisfy { !$0.baseline.isPersonal })
  }

  @Test("Motion-like noise is not turned into a confident rhythm: its windows are uncategorised")
  func noiseIsPoorSignal() throws {
    var state: UInt32 = 2024  // fixed-seed LCG, band-limited by a running mean: the same noise every run
    var smooth = 0.0
    let noise = (0..<(100 * 180)).map { _ -> Int32 in
      state = state &* 1_664_525 &+ 1_013_904_223
      smooth += (Double(state >> 16) - 32_768 - smooth) * 0.2
      return Int32(100_000 + smooth)
    }
    var analyzer = try PulseAnalyzer(rateHz: 100)
    var record = AnalysisRecord()
    analyzer.process(block: noise) { record.add($0) }
    analyzer.finish { record.add($0) }
    #expect(record.windows.count == 13)
    #expect(record.windows.allSatisfy { $0.stress == nil })
  }
}
