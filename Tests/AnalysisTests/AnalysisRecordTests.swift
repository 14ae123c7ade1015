import Analysis
import PulseDSP
import StressModel
import Testing

@Suite("AnalysisRecord")
struct AnalysisRecordTests {
  /// A beat whose rise takes `riseSamples` working samples (amplitude over steepest upslope).
  static func beat(_ seconds: Double, amplitude: Int64, riseSamples: Int64 = 4) -> AnalysisEvent {
    let beat = DetectedBeat(
      positionQ16: Int64(seconds * 100 * 65_536), reportedAt: Int64(seconds * 100) + 20, amplitudeQ8: amplitude,
      upslopeQ8: amplitude / riseSamples)
    return .beat(AnalysisBeat(beat: beat, seconds: seconds, latencySeconds: 0.2))
  }

  static func interval(_ start: Double, _ end: Double, _ verdict: InterBeatInterval.Verdict) -> AnalysisEvent {
    .interval(InterBeatInterval(startSeconds: start, endSeconds: end, verdict: verdict, segment: 0))
  }

  /// Beats at 0, 1, `at` (1.4 s unless told; the middle one with `middle` amplitude), 2 and 3 s; the cleaner calls
  /// 1-`at` and `at`-2 the two halves of an interval split by an extra detection.
  /// `quality`: the detector's signal state from 0 s (none reported: settling).
  static func splitInterval(
    middle: Int64, at seconds: Double = 1.4, riseSamples: Int64 = 4, quality: SignalQuality? = nil
  ) -> AnalysisRecord {
    var record = AnalysisRecord()
    if let quality { record.add(.quality(quality, atSeconds: 0)) }
    for event in splitEvents(middle: middle, at: seconds, riseSamples: riseSamples) { record.add(event) }
    return record
  }

  static func splitEvents(middle: Int64, at seconds: Double = 1.4, riseSamples: Int64 = 4) -> [AnalysisEvent] {
    [
      beat(0, amplitude: 1000), beat(1, amplitude: 1000), beat(seconds, amplitude: middle, riseSamples: riseSamples),
      interval(0, 1, .clean),
      beat(2, amplitude: 900), interval(1, seconds, .extraBeat), interval(seconds, 2, .extraBeat),
      beat(3, amplitude: 1000), interval(2, 3, .clean),
    ]
  }

  @Test("A detection that splits an interval and is weaker than both neighbours is left out of the reported beats")
  func weakExtraBeatLeftOut() {
    let record = Self.splitInterval(middle: 300)
    #expect(record.beats.count == 5)
    #expect(record.reportedBeats.map(\.seconds) == [0, 1, 2, 3])
    #expect(record.artefactCount == 1)
    // The intervals and their verdicts are the cleaner's, untouched.
    #expect(record.intervals.map(\.verdict) == [.clean, .extraBeat, .extraBeat, .clean])
  }

  @Test("A split whose middle beat is as strong as a neighbour keeps every beat (two real short intervals)")
  func strongMiddleKept() {
    let record = Self.splitInterval(middle: 950)
    #expect(record.reportedBeats.count == 5)
    #expect(record.artefactCount == 0)
  }

  @Test("In a clean pulse, a weaker middle beat that rose with its neighbours' stroke is a short-coupled beat and kept")
  func shortCoupledBeatKept() {
    // An AF beat that came early had less time to fill: smaller than both neighbours, as steep a stroke
    #expect(Self.splitInterval(middle: 600, quality: .good).artefactCount == 0)
    // Early in the pair (the interval after it the longer), a third of the smaller neighbour (900) is still a beat's
    // size; late in it, half. Under that, or rising slower than they did, it is noise
    #expect(Self.splitInterval(middle: 308, quality: .good).artefactCount == 0)
    #expect(Self.splitInterval(middle: 296, quality: .good).artefactCount == 1)
    #expect(Self.splitInterval(middle: 452, at: 1.6, quality: .good).artefactCount == 0)
    #expect(Self.splitInterval(middle: 448, at: 1.6, quality: .good).artefactCount == 1)
    #expect(Self.splitInterval(middle: 308, at: 1.6, quality: .good).artefactCount == 1)
    #expect(Self.splitInterval(middle: 600, riseSamples: 5, quality: .good).artefactCount == 1)
    // Where the detector did not call the signal good, the weaker middle beat stays out whatever its shape
    #expect(Self.splitInterval(middle: 600, quality: .poorSignal).artefactCount == 1)
    #expect(Self.splitInterval(middle: 600).artefactCount == 1)
    // ...unless that poor signal is the rhythm's alone: the detector found the rhythm irregular while the pulse stayed
    // clean (AF)
    var rhythmPoor = AnalysisRecord()
    rhythmPoor.add(.quality(.poorSignal, atSeconds: -0.3, rhythmOnly: true))
    for event in Self.splitEvents(middle: 600) { rhythmPoor.add(event) }
    #expect(rhythmPoor.artefactCount == 0)
    #expect(rhythmPoor.qualityChanges.map(\.rhythmOnly) == [true])
  }

  /// Beats at 0, 1, 2 (with `start` amplitude), 2.3, 3.3 and 4.3 s; the cleaner reads 2-2.3 and 2.3-3.3 as a
  /// premature beat at 2.3 s whose rhythm resets.
  static func prematurePair(start: Int64) -> AnalysisRecord {
    var record = AnalysisRecord()
    for event in [
      beat(0, amplitude: 1000), beat(1, amplitude: 1000), beat(2, amplitude: start), interval(0, 1, .clean),
      beat(2.3, amplitude: 900), interval(1, 2, .clean), beat(3.3, amplitude: 1000), interval(2, 2.3, .prematureBeat),
      interval(2.3, 3.3, .prematureBeat), beat(4.3, amplitude: 1000), interval(3.3, 4.3, .clean),
    ] {
      record.add(event)
    }
    return record
  }

  @Test("The beat a premature pair starts from is left out when it is under half its neighbours' size")
  func weakPrematureStartLeftOut() {
    // Noise taken about where a beat was due makes the real pulse after it look premature
    let record = Self.prematurePair(start: 400)
    #expect(record.reportedBeats.map(\.seconds) == [0, 1, 2.3, 3.3, 4.3])
    #expect(record.artefactCount == 1)
    #expect(record.intervals.map(\.verdict) == [.clean, .clean, .prematureBeat, .prematureBeat, .clean])
  }

  @Test("A real premature beat's pair keeps every beat: the sinus beat it starts from is as large as its neighbours")
  func realPrematurePairKept() {
    #expect(Self.prematurePair(start: 1000).artefactCount == 0)
    // 0.5 of the smaller neighbour (900) and above is kept
    #expect(Self.prematurePair(start: 450).artefactCount == 0)
  }

  @Test("Recovered beats are counted apart and left out of the real-time latency")
  func recoveredLatency() {
    var record = AnalysisRecord()
    record.add(Self.beat(1, amplitude: 1000))
    let late = DetectedBeat(
      positionQ16: 150 * 65_536, reportedAt: 320, amplitudeQ8: 400, upslopeQ8: 100, recovered: true)
    record.add(.beat(AnalysisBeat(beat: late, seconds: 1.5, latencySeconds: 1.7)))
    record.add(Self.beat(3, amplitude: 1000))
    #expect(record.recoveredCount == 1)
    #expect(abs(record.maximumLatencySeconds - 0.2) < 1e-12)
    #expect(record.reportedBeats.count == 3)
  }
}

@Suite("A beat replaced by the detector")
struct ReplacedBeatTests {
  @Test("The cleaner moves the waiting interval's end to the replacing beat; no interval ends at the replaced one")
  func cleanerReplacesLastBeat() {
    // Given a regular 1 s rhythm whose beat at 5 s was first reported 0.25 s early
    var cleaner = IBICleaner()
    var intervals: [InterBeatInterval] = []
    for t in [0.0, 1, 2, 3, 4, 4.75] { cleaner.addBeat(atSeconds: t) { intervals.append($0) } }
    // When the detector replaces it with the real one at 5 s and the rhythm goes on
    cleaner.replaceLastBeat(atSeconds: 5)
    for t in [6.0, 7, 8, 9, 10] { cleaner.addBeat(atSeconds: t) { intervals.append($0) } }
    cleaner.breakSegment { intervals.append($0) }
    // Then the intervals are those of the real beats, all clean
    #expect(intervals.map(\.endSeconds) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    let verdicts = intervals.map(\.verdict)
    #expect(verdicts.allSatisfy { $0 == .clean }, "\(verdicts)")
  }

  @Test("The record leaves the replaced beat out of the reported beats")
  func recordLeavesReplacedOut() {
    var record = AnalysisRecord()
    record.add(AnalysisRecordTests.beat(1, amplitude: 1000))
    record.add(AnalysisRecordTests.beat(1.75, amplitude: 300))
    let real = DetectedBeat(
      positionQ16: 200 * 65_536, reportedAt: 220, amplitudeQ8: 1000, upslopeQ8: 250, replacesPrevious: true)
    record.add(.beat(AnalysisBeat(beat: real, seconds: 2, latencySeconds: 0.2)))
    #expect(record.reportedBeats.map(\.seconds) == [1, 2])
    #expect(record.artefactCount == 1)
  }
}
