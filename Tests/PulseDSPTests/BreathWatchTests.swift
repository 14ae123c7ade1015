import Foundation
import Testing

@testable import PulseDSP

/// A deep breath's baseline passes the 0.5 Hz high-pass and swings the beats' feet by more than the pulse: the
/// detector then runs its high-pass at `BeatDetectorTuning.breathHighPassCornerHz` (`BeatDetector.watchBreath`), and
/// back at 0.5 Hz once the feet stop moving. A pulse without such a wander never switches it.
@Suite("A deep breath's baseline switches the high-pass to a higher corner, and only it")
struct BreathWatchTests {
  /// Pulses every `interval` s at 100 Hz, 2 000 counts high (`SyntheticPulseTrain`), and a breath of `wander` times
  /// the pulse's size at 0.35 Hz while `breathing(t)`.
  static func samples(
    interval: Double, wander: Double, seconds: Double, secondaryWave: Double = 0,
    breathing: (Double) -> Bool = { _ in true }
  ) -> (samples: [Int32], beats: [Double]) {
    let beats = stride(from: 0.9, to: seconds, by: interval).map { $0 }
    let samples = SyntheticPulseTrain.samples(
      rateHz: 100, beats: beats, amplitude: 2_000, seconds: seconds, seed: 7
    ) { t in
      var extra = breathing(t) ? wander * 2_000 * sin(2 * Double.pi * 0.35 * t) : 0
      if secondaryWave > 0, let beat = beats.last(where: { $0 <= t }) {
        // A reflected wave 350 ms after the peak, `secondaryWave` of the pulse's height.
        let u = (t - beat - 0.35) / 0.06
        extra += secondaryWave * 2_000 * exp(-u * u / 2)
      }
      return extra
    }
    return (samples, beats)
  }

  /// Runs the detector second by second: whether the breath filter was engaged at the end of each second, and the
  /// beats found (seconds).
  static func run(_ samples: [Int32]) throws -> (engaged: [Bool], beats: [Double]) {
    var detector = try BeatDetector(sampleRateHz: 100)
    var engaged: [Bool] = []
    var beats: [Double] = []
    for start in stride(from: 0, to: samples.count, by: 100) {
      detector.process(Array(samples[start..<min(samples.count, start + 100)])) { event in
        if case .beat(let beat) = event {
          if beat.replacesPrevious { beats.removeLast() }
          beats.append(beat.position / 100)
        }
      }
      engaged.append(detector.breathEngaged)
    }
    return (engaged, beats)
  }

  /// True beats in [from, to) with a found beat within 50 ms, and found beats there with no true one.
  static func matched(
    _ found: [Double], _ truth: [Double], from: Double, to: Double
  ) -> (hit: Int, missed: Int, extra: Int) {
    let t = truth.filter { $0 >= from && $0 < to }
    let f = found.filter { $0 >= from && $0 < to }
    let hit = t.count { x in f.contains { abs($0 - x) <= 0.05 } }
    let extra = f.count { x in !t.contains { abs($0 - x) <= 0.05 } }
    return (hit, t.count - hit, extra)
  }

  @Test("A breath 2.5 times the pulse engages the higher corner, and every beat is found after it")
  func deepBreathEngages() throws {
    // Given 70 bpm pulses on a 0.35 Hz breath 2.5 times their size
    let (samples, truth) = Self.samples(interval: 0.86, wander: 2.5, seconds: 60)
    // When the detector runs
    let (engaged, beats) = try Self.run(samples)
    // Then it engages within the first 20 s and stays engaged
    let first = try #require(engaged.firstIndex(of: true), "never engaged")
    #expect(first < 20, "engaged only at \(first) s")
    #expect(engaged[first...].allSatisfy { $0 })
    // ...and from then on it finds every pulse and nothing else
    let m = Self.matched(beats, truth, from: Double(first) + 5, to: 59)
    #expect(m.missed == 0 && m.extra == 0, "\(m) after \(first + 5) s")
  }

  @Test("A slow pulse with a reflected wave on a deep breath: every beat found at the higher corner, nothing else")
  func slowPulseOnDeepBreath() throws {
    // Given 40 bpm pulses (0.67 Hz: the 1 Hz corner passes their fundamental at about 0.55, and a 2 Hz one lifts
    // their reflected wave into an extra beat) with a reflected wave 0.35 of their height, on a 0.35 Hz breath twice
    // their size
    let (samples, truth) = Self.samples(interval: 1.5, wander: 2.0, seconds: 90, secondaryWave: 0.35)
    // When the detector runs
    let (engaged, beats) = try Self.run(samples)
    // Then it engages (ten beats or so: six feet, then four steps above the share), and from 10 s after that it
    // finds every pulse and nothing else
    let first = try #require(engaged.firstIndex(of: true), "never engaged")
    #expect(first < 45, "engaged only at \(first) s")
    let m = Self.matched(beats, truth, from: Double(first) + 10, to: 89)
    #expect(m.hit >= 25 && m.missed == 0 && m.extra == 0, "\(m) after \(first + 10) s")
  }

  @Test("The same pulses without a breath, and a slow pulse, never engage it", arguments: [0.86, 1.5])
  func noBreathNoSwitch(interval: Double) throws {
    // Given pulses at 70 or 40 bpm with no wander
    let (samples, truth) = Self.samples(interval: interval, wander: 0, seconds: 60)
    // When the detector runs, then it never switches, and finds the pulses
    let (engaged, beats) = try Self.run(samples)
    #expect(!engaged.contains(true))
    let m = Self.matched(beats, truth, from: 5, to: 59)
    #expect(m.missed == 0 && m.extra == 0, "\(m)")
  }

  @Test("Once the breath calms, the high-pass returns to 0.5 Hz")
  func calmReleases() throws {
    // Given a deep breath for the first 40 s, then none
    let (samples, _) = Self.samples(interval: 0.86, wander: 2.5, seconds: 80) { $0 < 40 }
    // When the detector runs
    let (engaged, _) = try Self.run(samples)
    // Then it is engaged at 40 s, and no longer from 55 s on (eight quiet beats, the references settled)
    #expect(engaged[39])
    #expect(!engaged[55...].contains(true), "still engaged after the breath calmed: \(engaged[40...])")
  }
}
