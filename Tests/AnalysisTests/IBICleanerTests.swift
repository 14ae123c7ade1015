import StressModel
import TestSupport
import Testing

@Suite("IBI cleaning and HRV windows")
struct IBICleanerTests {
  /// Beat times (s) of a real NN series: pyhrv's 5-minute example, 337 intervals.
  private func beats(_ intervalsMs: [Double]) -> [Double] {
    var t = 0.0
    return [0] + intervalsMs.map { t += $0 / 1000; return t }
  }

  private func clean(_ beats: [Double], breakAt: Set<Int> = []) -> [InterBeatInterval] {
    var cleaner = IBICleaner()
    var out: [InterBeatInterval] = []
    for (i, beat) in beats.enumerated() {
      if breakAt.contains(i) { cleaner.breakSegment { out.append($0) } }
      cleaner.addBeat(atSeconds: beat) { out.append($0) }
    }
    cleaner.finish { out.append($0) }
    return out
  }

  @Test("Real NN series pass almost untouched (≤ 3.5 % of strong sinus arrhythmia lost), in order")
  func realSeriesIsClean() throws {
    for file in ["rr/pyhrv_nni_short.csv", "rr/pyhrv_nni_long.csv", "rr/systole_rr.csv"] {
      let nn = try SharedData.column(file)
      let judged = clean(beats(nn))
      #expect(judged.count == nn.count)
      #expect(zip(judged, nn).allSatisfy { abs($0.milliseconds - $1) < 1e-6 })
      let rejected = judged.filter { !$0.isClean }.count
      #expect(Double(rejected) <= 0.035 * Double(nn.count), "\(file): \(rejected) of \(nn.count) rejected")
    }
  }

  @Test("An ectopic beat (early beat plus compensatory pause) rejects both intervals, nothing else")
  func ectopicBeat() throws {
    var nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let k = 150
    let shift = nn[k] * 0.35
    nn[k] -= shift
    nn[k + 1] += shift
    let judged = clean(beats(nn))
    #expect(judged[k].verdict == .irregular)
    #expect(judged[k + 1].verdict == .irregular)
    let clean = clean(beats(try SharedData.column("rr/pyhrv_nni_short.csv"))).filter { !$0.isClean }.count
    #expect(judged.filter { !$0.isClean }.count <= clean + 2)
  }

  @Test("A missed beat (two intervals merged) and an extra detection are both rejected")
  func missedAndExtraBeats() throws {
    var nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let merged = nn[100] + nn[101]
    nn.replaceSubrange(100...101, with: [merged])
    let split = nn[200] / 2
    nn.replaceSubrange(200...200, with: [split, split])
    let judged = clean(beats(nn))
    #expect(judged[100].verdict == .irregular)
    #expect(judged[200].verdict == .irregular && judged[201].verdict == .irregular)
  }

  @Test("Intervals outside 300-2000 ms are implausible, and nothing is stitched across a segment break")
  func implausibleAndSegments() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    var times = beats(nn)
    times.insert(times[50] + 0.2, at: 51)  // a double detection 200 ms after a beat
    let judged = clean(times, breakAt: [120])
    #expect(judged[50].verdict == .implausible)
    // The break drops the interval between beats 119 and 120: one interval fewer, and segments differ.
    #expect(judged.count == times.count - 2)
    #expect(!judged.contains { $0.startSeconds == times[119] && $0.endSeconds == times[120] })
    #expect(Set(judged.map(\.segment)).count == 2)
    let runs = InterBeatInterval.cleanRuns(judged)
    #expect(runs.count >= 3)  // split at the double detection and at the break
  }

  @Test("Windows end every step from the window length on, and count only the intervals ending inside")
  func windowLayout() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let judged = clean(beats(nn))
    var windowing = HRVWindowing(configuration: HRVWindowConfiguration(lengthSeconds: 60, stepSeconds: 10))
    for interval in judged { windowing.add(interval) }
    var windows: [HRVWindowSummary] = []
    windowing.emitWindows(completeThrough: judged.last!.endSeconds) { windows.append($0) }
    #expect(windows.first?.endSeconds == 60)
    #expect(zip(windows.dropFirst(), windows).allSatisfy { $0.endSeconds - $1.endSeconds == 10 })
    for window in windows {
      let inside = judged.filter { $0.endSeconds >= window.startSeconds && $0.endSeconds < window.endSeconds }
      #expect(window.cleanIntervals + window.rejectedIntervals == inside.count)
      #expect(window.quality == .good)
      let expected = HRVMetrics(segmentsMs: InterBeatInterval.cleanRuns(inside))
      #expect(window.metrics == expected)
    }
  }

  @Test("Window quality: no contact, saturated, poor signal and too few beats are named and never scored")
  func windowQuality() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let judged = clean(beats(nn))
    func window(states: [(Double, WindowQuality)], keep: (InterBeatInterval) -> Bool = { _ in true },
                spoil: Bool = false) -> HRVWindowSummary {
      var windowing = HRVWindowing()
      for (t, s) in states { windowing.setSignalState(s, atSeconds: t) }
      for var interval in judged.filter(keep) {
        if spoil && interval.endSeconds > 60 && interval.endSeconds < 120 && Int(interval.endSeconds * 10) % 2 == 0 {
          interval.verdict = .irregular
        }
        windowing.add(interval)
      }
      return windowing.summary(endingAt: 120)
    }
    #expect(window(states: []).quality == .good)
    #expect(window(states: [(70, .noContact), (110, .good)]).quality == .noContact)
    #expect(window(states: [(60, .saturated)]).quality == .saturated)
    #expect(window(states: [], spoil: true).quality == .poorSignal)
    #expect(window(states: [], keep: { $0.endSeconds < 80 }).quality == .insufficientBeats)
    #expect(window(states: [(80, .noContact)], keep: { $0.endSeconds < 80 }).quality == .noContact)
    for bad in [window(states: [(70, .noContact), (110, .good)]), window(states: [], spoil: true)] {
      #expect(bad.stress == nil)
    }
    #expect(window(states: []).stress != nil)
  }
}
