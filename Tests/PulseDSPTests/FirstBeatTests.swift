import Foundation
import PulseDSP
import Testing

/// The first beat after a start or a restart is taken against a range seen for a fraction of a second. A ripple just
/// after the settling time (the light still moving after a finger is put down, a notch, noise) can pass for it, and
/// the pulse that follows inside the refractory period was then turned away with nothing to time it from. A candidate
/// there at least `replaceAmplitudeRatio` times as large replaces that first beat, as any last beat
/// (`BeatDetector.replacesLastBeat`: a replacement needs no beat before the one it replaces).
@Suite("The first beat after a start gives way to the pulse right after it")
struct FirstBeatTests {
  /// A pulse train at `rateHz` (`SyntheticPulseTrain`) plus one Gaussian ripple (σ 25 ms) at `rippleAt`.
  static func pulses(
    rateHz: Double, beats: [Double], amplitude: Double, rippleAt: Double, ripple: Double, seconds: Double
  ) -> [Int32] {
    SyntheticPulseTrain.samples(rateHz: rateHz, beats: beats, amplitude: amplitude, seconds: seconds, seed: 91) { t in
      let r = (t - rippleAt) / 0.025
      return ripple * exp(-0.5 * r * r)
    }
  }

  /// The detector's beats in seconds, with a replaced beat removed (`DetectedBeat.replacesPrevious`).
  static func beats(_ samples: [Int32], rateHz: Double) throws -> [Double] {
    var detector = try BeatDetector(sampleRateHz: rateHz)
    var beats: [Double] = []
    detector.process(samples) { event in
      guard case .beat(let beat) = event else { return }
      if beat.replacesPrevious { beats.removeLast() }
      beats.append(beat.position / rateHz)
    }
    return beats
  }

  @Test("A ripple taken as the first beat is replaced by the pulse 200 ms after it", arguments: [25.0, 100, 400])
  func rippleGivesWay(rateHz: Double) throws {
    // Given pulses every 0.9 s from 0.95 s on, and a ripple a fifth of their size 200 ms before the first one
    // (after the 0.5 s the filters settle for, past the 150 ms merge window, inside the 250 ms refractory period)
    let truth = stride(from: 0.95, to: 12, by: 0.9).map { $0 }
    let samples = Self.pulses(
      rateHz: rateHz, beats: truth, amplitude: 2_000, rippleAt: 0.75, ripple: 400, seconds: 12)
    // When the detector runs from the first sample
    let beats = try Self.beats(samples, rateHz: rateHz)
    // Then every pulse is a beat, the first one included, and the ripple is not
    let tolerance = 2.5 / rateHz + 0.01
    #expect(!beats.contains { abs($0 - 0.75) < 0.1 }, "the ripple is still a beat: \(beats.prefix(3))")
    for t in truth {
      #expect(beats.contains { abs($0 - t) <= tolerance }, "no beat at \(t) s; first beats \(beats.prefix(3))")
    }
    #expect(beats.count == truth.count, "\(beats.count) beats for \(truth.count) pulses")
  }

  @Test("Without a ripple the pulses are the beats from the first one on, and none is replaced")
  func cleanStartReplacesNothing() throws {
    // Given the same pulses without a ripple, at 100 Hz
    let truth = stride(from: 0.95, to: 12, by: 0.9).map { $0 }
    let samples = Self.pulses(rateHz: 100, beats: truth, amplitude: 2_000, rippleAt: -1, ripple: 0, seconds: 12)
    // When the detector runs
    var detector = try BeatDetector(sampleRateHz: 100)
    var beats: [DetectedBeat] = []
    detector.process(samples) { if case .beat(let b) = $0 { beats.append(b) } }
    // Then it takes exactly the pulses, each on time, and replaces none
    #expect(beats.count == truth.count)
    #expect(beats.allSatisfy { !$0.replacesPrevious })
    for (b, t) in zip(beats, truth) { #expect(abs(b.position / 100 - t) <= 0.02) }
  }
}
