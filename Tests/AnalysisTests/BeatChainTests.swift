import Analysis
import PulseDSP
import StressModel
import Testing

/// What the chain after the detector makes of the detector's signal states.
@Suite("BeatChain: the detector's states in the windows")
struct BeatChainTests {
  static let rate = 100.0

  /// Beats from 0.5 s to `seconds` at 61-67 bpm: a triangle swing over eight beats, 0.9 to 0.98 s, 2 % at most from
  /// one interval to the next.
  static func beatTimes(until seconds: Double) -> [Double] {
    var beats: [Double] = []
    var t = 0.5
    while t < seconds {
      beats.append(t)
      t += 0.9 + 0.02 * Double(abs(beats.count % 8 - 4))
    }
    return beats
  }

  /// 100 s of `beatTimes`, reported 0.2 s after each peak, in blocks of one second, the detector's state changing as
  /// `changes` say ((seconds, state); it starts in `settling`). The windows.
  static func windows(changes: [(Double, SignalQuality)]) -> [HRVWindowSummary] {
    var chain = BeatChain(
      rateHz: rate, reportDelaySamples: 60, cleaner: IBICleaner.Configuration(), windows: HRVWindowConfiguration(),
      baseline: .default)
    var windows: [HRVWindowSummary] = []
    let sink = { (event: AnalysisEvent) in if case .window(let w) = event { windows.append(w) } }
    let beats = beatTimes(until: 100)
    for second in 0..<100 {
      var batch = DetectionBatch()
      batch.startPosition = Int64(second) * Int64(rate)
      batch.endPosition = batch.startPosition + Int64(rate)
      for (at, state) in changes where at >= Double(second) && at < Double(second + 1) {
        batch.events.append(.quality(state, at: Int64(at * rate)))
      }
      for time in beats where time + 0.2 >= Double(second) && time + 0.2 < Double(second + 1) {
        let beat = DetectedBeat(
          positionQ16: Int64(time * rate * 65_536), reportedAt: Int64((time + 0.2) * rate), amplitudeQ8: 25_600,
          upslopeQ8: 2_560)
        batch.events.append(.beat(beat))
      }
      chain.consume(batch, sink)
    }
    chain.finish(position: Int64(100 * rate), sink)
    return windows
  }

  @Test("A pulse that becomes good within seconds is scored in every window")
  func settledPulseScored() {
    let windows = Self.windows(changes: [(3, .good)])
    #expect(windows.count == 5)
    #expect(windows.allSatisfy { $0.quality == .good })
  }

  @Test("A detector still settling 15 s after it began counts as poor signal from then on")
  func longSettlingIsPoor() {
    // The same beats, but the detector never finds two intervals in a row on one rhythm
    let windows = Self.windows(changes: [])
    // Then every window holds 45 s or more of it: poor signal, no stress level
    #expect(windows.count == 5)
    #expect(windows.allSatisfy { $0.quality == .poorSignal && $0.stress == nil })
    // A restart that settles again within 15 s is as good as the first start
    let restarted = Self.windows(changes: [(3, .good), (50, .settling), (58, .good)])
    #expect(restarted.allSatisfy { $0.quality == .good })
    // One that does not is poor from 15 s after it began: windows ending past 50 + 15 + a quarter of 60 s
    let lost = Self.windows(changes: [(3, .good), (50, .settling)])
    #expect(lost.map(\.quality) == [.good, .good, .poorSignal, .poorSignal, .poorSignal])
  }

  /// 30 s of `beatTimes`, reported 0.2 s after each peak, one batch per beat; right after the first beat from
  /// 15 s the detector reports a poor signal (for the rhythm alone when `rhythmOnly`). The intervals.
  static func intervals(poorAfterBeatRhythmOnly rhythmOnly: Bool) -> [InterBeatInterval] {
    var chain = BeatChain(
      rateHz: rate, reportDelaySamples: 60, cleaner: IBICleaner.Configuration(), windows: HRVWindowConfiguration(),
      baseline: .default)
    var intervals: [InterBeatInterval] = []
    let sink = { (event: AnalysisEvent) in if case .interval(let i) = event { intervals.append(i) } }
    var turned = false
    for t in beatTimes(until: 30) {
      let reported = Int64((t + 0.2) * rate)
      var batch = DetectionBatch()
      batch.startQuality = .good
      batch.startPosition = reported
      batch.endPosition = reported + 1
      let poorNow = !turned && t >= 15
      turned = turned || poorNow
      batch.events.append(
        .beat(
          DetectedBeat(
            positionQ16: Int64(t * rate * 65_536), reportedAt: reported, amplitudeQ8: 25_600, upslopeQ8: 2_560)))
      if poorNow { batch.events.append(.quality(.poorSignal, at: reported, rhythmOnly: rhythmOnly)) }
      chain.consume(batch, sink)
    }
    chain.finish(position: Int64(31 * rate), sink)
    return intervals
  }

  @Test("A poor signal for the rhythm alone keeps the intervals' segment; one for noise breaks it there")
  func rhythmOnlyPoorSignalKeepsTheSegment() {
    let rhythm = Self.intervals(poorAfterBeatRhythmOnly: true)
    let noise = Self.intervals(poorAfterBeatRhythmOnly: false)
    // Early beats on a clean pulse: one segment, every interval there; the one after the beat is not clean alone
    #expect(Set(rhythm.map(\.segment)) == [0])
    #expect(rhythm.count == noise.count + 1)
    #expect(rhythm.filter { !$0.isClean }.map { $0.startSeconds >= 15 && $0.startSeconds < 16 } == [true])
    // Noise or motion: the rhythm is broken there, the interval across it dropped
    #expect(Set(noise.map(\.segment)) == [0, 1])
  }
}
