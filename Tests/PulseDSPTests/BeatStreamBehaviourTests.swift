import Foundation
import PulseDSP
import Testing

/// What any beat detector here must do on pulses whose beats are known exactly (`SyntheticPulseTrain`): one beat per
/// pulse, on time, at every working rate, and a premature beat found as a beat of its own. How many beats it finds on
/// harder material is the accuracy gate's to judge (scripts/bench-gate), not a test's.
@Suite("The beat stream on exactly known pulses")
struct BeatStreamBehaviourTests {
  /// The beats in seconds, a beat that replaces the one before it taking its place.
  static func beats(_ samples: [Int32], rateHz: Double) throws -> [Double] {
    var detector = try BeatDetector(sampleRateHz: rateHz)
    var beats: [Double] = []
    detector.process(samples) { event in
      guard case .beat(let beat) = event else { return }
      if beat.replacesPrevious, !beats.isEmpty { beats.removeLast() }
      beats.append(beat.position / rateHz)
    }
    return beats.sorted()
  }

  /// The beats of `beats` after the first `settle` seconds, paired with the true pulse each lies closest to.
  static func offsets(_ detected: [Double], truth: [Double], settle: Double) -> (offsets: [Double], unmatched: Int) {
    var offsets: [Double] = []
    var unmatched = 0
    for beat in detected where beat > settle {
      guard let nearest = truth.min(by: { abs($0 - beat) < abs($1 - beat) }), abs(nearest - beat) <= 0.15 else {
        unmatched += 1
        continue
      }
      offsets.append(beat - nearest)
    }
    return (offsets, unmatched)
  }

  @Test(
    "A clean pulse gives one beat per pulse, each within 2 samples + 15 ms of its peak, from 25 to 1000 Hz",
    arguments: [25.0, 50, 100, 200, 400, 1000])
  func onePerPulse(rateHz: Double) throws {
    // Given 40 s of pulses whose interval swings 0.8–1.0 s with a breath, 2000 counts high on a 100 000 count light
    var truth: [Double] = []
    var t = 0.95
    while t < 39.5 {
      truth.append(t)
      t += 0.9 + 0.1 * sin(2 * Double.pi * t / 5)
    }
    let samples = SyntheticPulseTrain.samples(rateHz: rateHz, beats: truth, amplitude: 2_000, seconds: 40, seed: 7)
    // When the detector runs from the first sample
    let beats = try Self.beats(samples, rateHz: rateHz)
    // Then after the first 3 s every pulse is one beat, and each beat lies on its pulse's peak
    let scored = truth.filter { $0 > 3 && $0 < 39 }
    let (offsets, unmatched) = Self.offsets(beats.filter { $0 < 39 }, truth: truth, settle: 3)
    #expect(unmatched == 0, "\(unmatched) beats on no pulse at \(rateHz) Hz")
    #expect(offsets.count == scored.count, "\(offsets.count) beats for \(scored.count) pulses at \(rateHz) Hz")
    let bound = 2 / rateHz + 0.015
    #expect(offsets.allSatisfy { abs($0) <= bound }, "offsets \(offsets.map { ($0 * 1000).rounded() }) ms")
  }

  @Test(
    "A premature beat 30 % early and 60 % as high is a beat of its own, and its pause gives no extra beat",
    arguments: [25.0, 100, 400])
  func prematureBeatFound(rateHz: Double) throws {
    // Given pulses every 0.9 s with a premature beat 30 % early, and a full compensatory pause, three times
    var truth: [Double] = []
    var premature: [Double] = []
    var t = 0.95
    var k = 0
    while t < 44 {
      k += 1
      if k % 12 == 0 {
        premature.append(t - 0.27)
        truth.append(t - 0.27)
        t += 0.9
      }
      truth.append(t)
      t += 0.9
    }
    let regular = truth.filter { !premature.contains($0) }
    let samples = SyntheticPulseTrain.samples(
      rateHz: rateHz, beats: regular, amplitude: 2_000, seconds: 45, seed: 11
    ) { time in
      premature.reduce(0) { sum, beat in
        let u = time - beat
        guard u > -0.12 else { return sum }
        return sum + 1_200 * (u < 0 ? 0.5 * (1 - cos(Double.pi * (u + 0.12) / 0.12)) : exp(-u / 0.25))
      }
    }
    // When the detector runs
    let beats = try Self.beats(samples, rateHz: rateHz)
    // Then every premature beat is found on time, and no beat lies on no pulse
    let bound = 2 / rateHz + 0.015
    for beat in premature {
      #expect(beats.contains { abs($0 - beat) <= bound }, "no beat at the premature pulse at \(beat) s")
    }
    let (offsets, unmatched) = Self.offsets(beats.filter { $0 < 44 }, truth: truth, settle: 3)
    #expect(unmatched == 0, "\(unmatched) beats on no pulse at \(rateHz) Hz")
    #expect(offsets.count == truth.filter { $0 > 3 && $0 < 44 }.count)
  }
}
