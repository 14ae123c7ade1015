import Platform
import StressModel
import TestSupport
import Testing

@Suite("HRV windows over judged intervals")
struct HRVWindowingTests {
  private func beats(_ intervalsMs: [Double]) -> [Double] { IBICleanerTests.beats(intervalsMs) }

  private func clean(_ beats: [Double]) -> [InterBeatInterval] { IBICleanerTests.clean(beats) }

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
    // Beats found without a steady rhythm are doubtful: a quarter of the window in poor signal names it, though
    // its intervals passed the cleaner; a shorter stretch (one motion burst) does not.
    #expect(window(states: [(90, .poorSignal), (105, .good)]).quality == .poorSignal)
    #expect(window(states: [(90, .poorSignal), (100, .good)]).quality == .good)
  }

  @Test("An irregular (AF-like) rhythm is named and not scored; real sinus arrhythmia and premature beats are scored")
  func irregularRhythm() throws {
    func windows(_ intervalsMs: [Double]) -> [HRVWindowSummary] {
      var windowing = HRVWindowing()
      let judged = clean(beats(intervalsMs))
      for interval in judged { windowing.add(interval) }
      var out: [HRVWindowSummary] = []
      windowing.emitWindows(completeThrough: judged.last!.endSeconds) { out.append($0) }
      return out
    }
    // Independent intervals, uniform within ±25 % of 700 ms (relative SD 0.14, as in atrial fibrillation).
    var random = SplitMix64(seed: 12)
    let af = (0..<400).map { _ in 700 * Double.random(in: 0.75...1.25, using: &random) }
    let afWindows = windows(af)
    #expect(
      !afWindows.isEmpty && afWindows.allSatisfy { $0.quality == .irregularRhythm && $0.stress == nil },
      "\(afWindows.map(\.quality.rawValue))")
    // The same intervals in a smooth swing (sorted up and down in runs of 8): the same spread, but sinus-like.
    let swing = stride(from: 0, to: af.count, by: 8).flatMap { start -> [Double] in
      let run = af[start..<min(start + 8, af.count)].sorted()
      return (start / 8).isMultiple(of: 2) ? run : run.reversed()
    }
    #expect(windows(swing).allSatisfy { $0.quality == .good })
    // Strong real sinus arrhythmia with a premature beat (20 % early, compensatory pause) every 15 beats.
    var nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    for i in stride(from: 10, to: nn.count - 1, by: 15) {
      let early = nn[i] * 0.2
      nn[i] -= early
      nn[i + 1] += early
    }
    #expect(windows(nn).allSatisfy { $0.quality == .good })
  }

  @Test("A pulse buried in noise (peaks between beats and beats unlike the pulse) is poor signal; either alone is not")
  func pulseBuriedInNoise() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let judged = clean(beats(nn))
    let config = HRVWindowConfiguration()
    // `extraEvery`: one turned-away peak every this many beats (0: none); `shape`: the r² × 256 of one judged beat in
    // `shapeEvery` (the others' 250, like the pulse); every beat judged by the template (as the detector does once its
    // template is ready) unless `judgedEvery` says otherwise.
    func window(extraEvery: Int, shape: Int, shapeEvery: Int = 1, judgedEvery: Int = 1) -> HRVWindowSummary {
      var windowing = HRVWindowing(configuration: config)
      for (k, interval) in judged.enumerated() {
        let judgedShape = (k / judgedEvery) % shapeEvery == 0 ? shape : 250
        windowing.noteBeat(
          atSeconds: interval.endSeconds, extraPeaks: extraEvery > 0 && k % extraEvery == 0 ? 1 : 0,
          shapeQ8: k % judgedEvery == 0 ? judgedShape : -1)
        windowing.add(interval)
      }
      return windowing.summary(endingAt: 120)
    }
    let unlike = Int(config.noisyShapeMatch * 256) - 20
    let like = 250
    // Given one extra peak in every 8 beats (0.125 per beat, above the 0.08 at which the window is doubted)
    // When the judged beats are unlike the pulse, Then the window is poor signal and unscored
    let buried = window(extraEvery: 8, shape: unlike)
    #expect(buried.quality == .poorSignal && buried.stress == nil)
    // ...and so it is when one in two is (more than two in five: HRVWindowing.unlikeShare), but not one in three
    #expect(window(extraEvery: 8, shape: unlike, shapeEvery: 2).quality == .poorSignal)
    #expect(window(extraEvery: 8, shape: unlike, shapeEvery: 3).quality == .good)
    // But the same peaks with beats that keep the pulse's shape (a slow pulse's late wave) are scored
    #expect(window(extraEvery: 8, shape: like).quality == .good)
    // And unlike beats without peaks between them (motion bends the shape) are scored
    #expect(window(extraEvery: 0, shape: unlike).quality == .good)
    // And one peak in 20 beats (0.05 per beat: a real recording's stray artefacts) is scored
    #expect(window(extraEvery: 20, shape: unlike).quality == .good)
    // And too few judged beats (fewer than HRVWindowing.minimumJudgedBeats) say nothing
    #expect(window(extraEvery: 8, shape: unlike, judgedEvery: 1_000).quality == .good)
  }

  @Test("A kept interval 1.7 times the window's median or more is left out of its figures; one 1.6 times it is not")
  func longKeptIntervalLeftOut() throws {
    let nn = try SharedData.column("rr/pyhrv_nni_short.csv")
    let judged = clean(beats(nn))
    func window(_ intervals: [InterBeatInterval]) -> HRVWindowSummary {
      var windowing = HRVWindowing()
      for interval in intervals { windowing.add(interval) }
      return windowing.summary(endingAt: 120)
    }
    // Given a window whose clean intervals are real NN, but two in its middle merged into one the cleaner kept (its
    // neighbours were missed beats too, so it looked like them): about twice the window's median
    let k = try #require(judged.firstIndex { $0.endSeconds > 90 })
    var merged = judged
    merged[k] = InterBeatInterval(
      startSeconds: judged[k].startSeconds, endSeconds: judged[k + 1].endSeconds, verdict: .clean, segment: 0)
    merged.remove(at: k + 1)
    var rejected = merged
    rejected[k].verdict = .missedBeat
    // When the window is summarised, Then it is as if the cleaner had rejected it: the same figures, one more rejected
    let kept = window(merged)
    #expect(merged[k].milliseconds >= 1.7 * (kept.metrics.map { 60_000 / $0.meanHeartRateBpm } ?? 0))
    #expect(kept.metrics == window(rejected).metrics)
    #expect(kept.rejectedIntervals == 1 && kept.cleanIntervals == window(rejected).cleanIntervals)
    #expect(kept.quality == .good)
    // But a long interval 1.6 times the median (the slowest, most variable hearts reach 1.5) is the wearer's
    let inside = judged.filter { $0.endSeconds >= 60 && $0.endSeconds < 120 }.map(\.milliseconds).sorted()
    var long = judged
    long[k].startSeconds = long[k].endSeconds - 1.6 * inside[inside.count / 2] / 1000
    #expect(window(long).rejectedIntervals == 0)
  }
}
