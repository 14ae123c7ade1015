import Foundation
import PulseDSP
import Testing

/// Every beat carries how well it matched the pulse template (`DetectedBeat.shapeQ8`) once the template is ready: the
/// IBI cleaner weighs an interval off the rhythm by the shapes of the beats bounding it. The detector itself acts on
/// the shape of every fourth beat on the rhythm only (`BeatDetectorTuning.templateOnTimeMask`).
@Suite("The detector reports every beat's shape")
struct PulseShapeReportTests {
  /// Each beat's time and shape, in seconds and r² × 256.
  static func shapes(_ samples: [Int32], rateHz: Double) throws -> [(seconds: Double, shapeQ8: Int16)] {
    var detector = try BeatDetector(sampleRateHz: rateHz)
    var beats: [(seconds: Double, shapeQ8: Int16)] = []
    detector.process(samples) { event in
      guard case .beat(let beat) = event else { return }
      beats.append((beat.position / rateHz, beat.shapeQ8))
    }
    return beats
  }

  @Test("On a steady pulse every beat after the first seconds has a shape, and it matches", arguments: [25.0, 100, 400])
  func everyBeatHasAShape(rateHz: Double) throws {
    // Given a pulse every 0.8 s for 60 s, the same shape each time
    let truth = stride(from: 1.0, to: 60, by: 0.8).map { $0 }
    let samples = SyntheticPulseTrain.samples(rateHz: rateHz, beats: truth, amplitude: 2_000, seconds: 60, seed: 7)
    // When the detector runs
    let beats = try Self.shapes(samples, rateHz: rateHz)
    #expect(beats.count == truth.count)
    // Then from 10 s on (the template learns from the first four good beats) every beat was matched, not one in four,
    // and matched well (r² ≥ 0.9)
    let later = beats.filter { $0.seconds > 10 }
    let unmatched = later.filter { $0.shapeQ8 < 0 }.map(\.seconds)
    #expect(unmatched.isEmpty, "beats without a shape: \(unmatched.prefix(5))")
    let poor = later.filter { $0.shapeQ8 >= 0 && $0.shapeQ8 < 230 }.map { ($0.seconds, $0.shapeQ8) }
    #expect(poor.isEmpty, "beats unlike the pulse: \(poor.prefix(5))")
  }
}
