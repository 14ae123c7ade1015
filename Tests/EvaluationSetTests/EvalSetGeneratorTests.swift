@testable import EvaluationSet
import Foundation
import Platform
import StressModel
import Signals
import Testing

/// The generator itself: the truth sits on the rendered peaks, the rates, levels and rhythms are what the
/// conditions promise, and a seed always gives the same bytes. (The detector's accuracy is not judged here.)
@Suite(
  "Evaluation set generator",
  .enabled(if: EvalSet.unavailableReason == nil, "needs the shared data set (STRESSMON_DATA)"))
struct EvalSetGeneratorTests {
  static func spec(_ condition: EvalCondition, _ rate: Double, seed: Int = 1, seconds: Double = 90) -> EvalRecordSpec {
    EvalRecordSpec(condition: condition, rateHz: rate, seed: seed, durationSeconds: seconds)
  }

  /// The trough of the light level near `t`: the lowest sample within ±50 ms and the vertex of the parabola
  /// through it and its neighbours.
  static func trough(_ x: [Double], rateHz rate: Double, near t: Double) -> Double? {
    let lo = max(1, Int((t - 0.05) * rate))
    let hi = min(x.count - 2, Int((t + 0.05) * rate))
    guard lo < hi else { return nil }
    var i = lo
    for j in lo...hi where x[j] < x[i] { i = j }
    guard i > lo, i < hi else { return nil }
    let d = x[i - 1] - 2 * x[i] + x[i + 1]
    guard d > 0 else { return nil }
    return (Double(i) + 0.5 * (x[i - 1] - x[i + 1]) / d) / rate
  }

  @Test(
    "The truth is the systolic peak of each rendered pulse, within 1 ms at 400 Hz",
    arguments: [EvalCondition.clean, .fast, .slow, .prematureCompensatory, .af])
  func truthOnRenderedPeaks(condition: EvalCondition) throws {
    // Given a record rendered without noise, drift or wander (the same pulse train on a flat light level)
    let record = try EvalSet.record(Self.spec(condition, 400), noiseFree: true)
    let truth = record.visibleBeats.map(\.seconds).filter { $0 > 0.06 && $0 < record.durationSeconds - 0.06 }
    // When the trough of the light level (before quantisation to counts) is located near each true beat
    let levels = try #require(record.noiseFreeLevels)
    let errors = try truth.map { t in abs(try #require(Self.trough(levels, rateHz: 400, near: t)) - t) * 1000 }
    // Then it sits on the truth (one sample is 2.5 ms)
    let worst = errors.max() ?? 0
    #expect(worst <= 1.0, "worst trough-to-truth distance \(worst) ms over \(truth.count) beats")
    // And the record has one true beat per heartbeat: consecutive numbers, intervals of a heart rhythm
    let numbers = record.beats.map(\.number)
    #expect(zip(numbers.dropFirst(), numbers).allSatisfy { $0 == $1 + 1 })
  }

  @Test("Each record has its rate, 18-bit counts, a DC of 100k–200k counts and pulses pointing down")
  func levelsAndRates() throws {
    for rate in EvalSet.rates {
      let record = try EvalSet.record(Self.spec(.clean, rate, seconds: 60))
      #expect(record.samples.count == Int(60 * rate))
      #expect(record.samples.allSatisfy { $0 >= 0 && $0 <= 262_143 })
      let sorted = record.samples.sorted()
      let median = Double(sorted[sorted.count / 2])
      #expect(median > 95_000 && median < 205_000, "median \(median) at \(rate) Hz")
      // Pulses point down: the sample at each true peak is below the median of the second around it.
      let x = record.samples
      let below = record.visibleBeats.filter { beat in
        let i = min(x.count - 1, Int((beat.seconds * rate).rounded()))
        let around = x[max(0, i - Int(0.5 * rate))...min(x.count - 1, i + Int(0.5 * rate))].sorted()
        return x[i] < around[around.count / 2]
      }
      #expect(below.count == record.visibleBeats.count, "\(rate) Hz: \(below.count) of \(record.visibleBeats.count)")
    }
  }

  @Test(
    "The AC is the drawn percentage of DC, and heart rates lie in each condition's range",
    arguments: [
      (EvalCondition.clean, 55.0, 95.0), (.fast, 150, 190), (.slow, 38, 44), (.noisy, 55, 95), (.af, 70, 120),
    ])
  func acAndHeartRate(condition: EvalCondition, low: Double, high: Double) throws {
    for seed in 1...3 {
      let record = try EvalSet.record(Self.spec(condition, 100, seed: seed), noiseFree: true)
      let p = record.parameters
      #expect(p.acPercent >= (condition == .noisy ? 0.1 : 0.3) && p.acPercent <= (condition == .noisy ? 0.5 : 3))
      // Pulse depth: DC minus the samples at the true peaks (amplitudes vary ±40 % by beat, so the median).
      let depths = record.visibleBeats.map { p.dcCounts - Double(record.samples[Int(($0.seconds * 100).rounded())]) }
      let depth = depths.sorted()[depths.count / 2] / p.dcCounts * 100
      #expect(abs(depth / p.acPercent - 1) < 0.2, "pulse depth \(depth) % for AC \(p.acPercent) %")
      let beats = record.visibleBeats.map(\.seconds)
      let bpm = 60 * Double(beats.count - 1) / (beats[beats.count - 1] - beats[0])
      #expect(bpm >= 0.93 * low && bpm <= 1.07 * high, "\(condition) seed \(seed): \(bpm) bpm")
    }
  }

  @Test("The same spec gives the same bytes; another seed or condition gives another record")
  func determinism() throws {
    let spec = Self.spec(.motion, 100, seconds: 60)
    let a = try EvalSet.record(spec)
    let b = try EvalSet.record(spec)
    #expect(a.csv() == b.csv())
    #expect(try a.sidecar().encoded() == b.sidecar().encoded())
    let other = try EvalSet.record(Self.spec(.motion, 100, seed: 2, seconds: 60))
    #expect(other.samples != a.samples)
    #expect(other.parameters != a.parameters)
    let clean = try EvalSet.record(Self.spec(.clean, 100, seconds: 60))
    #expect(clean.samples != a.samples)
  }

  @Test("A held-out selection (--first-seed) has every condition and rate, at seeds the set does not use")
  func heldOutSeeds() {
    let set = EvalSet.fullSpecs(seeds: 2, durationSeconds: 60)
    let heldOut = EvalSet.fullSpecs(seeds: 3, firstSeed: 101, durationSeconds: 60)
    #expect(Set(set.map(\.seed)) == [1, 2])
    #expect(Set(heldOut.map(\.seed)) == [101, 102, 103])
    #expect(heldOut.count == EvalCondition.allCases.count * EvalSet.rates.count * 3)
    #expect(Set(heldOut.map(\.condition)) == Set(EvalCondition.allCases))
  }

  @Test("Premature beats: the foot comes 20–35 % early, then a full compensatory pause or a normal interval")
  func prematureSchedule() throws {
    let material = try #require(EvalMaterial.shared)
    for condition in [EvalCondition.prematureCompensatory, .prematureNoncompensatory] {
      // Given the same record's parameters drawn with and without premature beats (same random stream)
      let spec = Self.spec(condition, 200, seconds: 300)
      var random = SplitMix64(seed: spec.generatorSeed)
      var p = EvalParameters.draw(spec, material: material, random: &random)
      var withRandom = random
      var withoutRandom = random
      let with = BeatSchedule.draw(p, duration: 300, material: material, random: &withRandom)
      p.prematureProbability = nil
      let without = BeatSchedule.draw(p, duration: 300, material: material, random: &withoutRandom)
      // Then only the intervals around each premature beat differ, as the condition says
      let n = min(with.feet.count, without.feet.count) - 1
      let sinus = (0..<n).map { without.feet[$0 + 1] - without.feet[$0] }
      let actual = (0..<n).map { with.feet[$0 + 1] - with.feet[$0] }
      var premature = 0
      for k in 1..<n {
        guard with.premature[k] else {
          if !with.premature[k + 1] { #expect(abs(actual[k] - sinus[k]) < 1e-9) }
          continue
        }
        premature += 1
        let early = 1 - actual[k - 1] / sinus[k - 1]
        #expect(early >= 0.2 - 1e-9 && early <= 0.35 + 1e-9, "\(early) early")
        if condition == .prematureCompensatory {
          #expect(abs(actual[k - 1] + actual[k] - sinus[k - 1] - sinus[k]) < 1e-9)
        } else {
          #expect(abs(actual[k] - sinus[k]) < 1e-9)
        }
      }
      #expect(premature >= 5, "\(condition): \(premature) premature beats in 5 minutes")
    }
  }

  @Test("Premature beats in the rendered truth: short then long, the pair two normals long only with the pause")
  func prematureTruth() throws {
    var pairSums: [EvalCondition: [Double]] = [:]
    for condition in [EvalCondition.prematureCompensatory, .prematureNoncompensatory] {
      let record = try EvalSet.record(Self.spec(condition, 200, seconds: 300), noiseFree: true)
      let t = record.visibleBeats.map(\.seconds)
      let premature = Set(record.visibleBeats.indices.filter { record.visibleBeats[$0].premature })
      for i in premature where i >= 6 && i + 6 < t.count {
        // "Normal": the median of the nearby intervals that touch no premature beat.
        let near = (i - 6)..<(i + 6)
        let normal = near.filter { j in !premature.contains(j) && !premature.contains(j + 1) }.map { t[$0 + 1] - t[$0] }
          .sorted()
        let median = normal[normal.count / 2]
        let short = (t[i] - t[i - 1]) / median
        let long = (t[i + 1] - t[i]) / median
        #expect(short < 0.95 && long > short, "short \(short), long \(long) of normal")
        pairSums[condition, default: []].append(short + long)
      }
    }
    // Sinus variability moves single pairs; on average the pause makes the pair two normal intervals.
    let mean = { (x: [Double]) in x.reduce(0, +) / Double(x.count) }
    let compensatory = mean(pairSums[.prematureCompensatory] ?? [])
    let reset = mean(pairSums[.prematureNoncompensatory] ?? [])
    #expect(abs(compensatory - 2) < 0.1, "compensatory pairs average \(compensatory) normals")
    #expect(reset > 1.6 && reset < 1.85, "non-compensatory pairs average \(reset) normals")
  }

  @Test("Conditions differ where they should: AF is irregular, noise, motion and lifts show in the samples")
  func conditionsDiffer() throws {
    func cv(_ record: EvalRecord) -> Double {
      let t = record.visibleBeats.map(\.seconds)
      let ibi = zip(t.dropFirst(), t).map { $0 - $1 }
      let mean = ibi.reduce(0, +) / Double(ibi.count)
      return (ibi.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ibi.count)).squareRoot() / mean
    }
    let clean = try EvalSet.record(Self.spec(.clean, 100, seconds: 120))
    let af = try EvalSet.record(Self.spec(.af, 100, seconds: 120))
    #expect(cv(af) > 0.13 && cv(af) > 1.3 * cv(clean), "RR spread AF \(cv(af)), clean \(cv(clean))")

    // Noise: the sample-to-sample jitter relative to the pulse is far larger on a noisy record.
    func jitterToPulse(_ record: EvalRecord) -> Double {
      let x = record.samples.map(Double.init)
      let d = zip(x.dropFirst(2), zip(x.dropFirst(), x)).map { $0 - 2 * $1.0 + $1.1 }
      let rms = (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
      return rms / (record.parameters.acPercent / 100 * record.parameters.dcCounts)
    }
    let noisy = try EvalSet.record(Self.spec(.noisy, 100, seconds: 120))
    #expect(jitterToPulse(noisy) > 3 * jitterToPulse(clean))

    // Motion: the samples stray far further from the DC inside the bursts than outside.
    let motion = try EvalSet.record(Self.spec(.motion, 100, seconds: 120))
    #expect(!motion.motionSpans.isEmpty)
    let ac = motion.parameters.acPercent / 100 * motion.parameters.dcCounts
    for span in motion.motionSpans {
      let inside = motion.samples[Int(span.start * 100)..<Int(span.end * 100)].map(Double.init)
      #expect((inside.max()! - inside.min()!) > 1.5 * ac)
    }

    // Lifted: near dark inside the lift, no visible beat there, and those seconds excluded from scoring.
    let lifted = try EvalSet.record(Self.spec(.lifted, 100, seconds: 120))
    let lift = try #require(lifted.liftSpans.first)
    let p = try #require(lifted.parameters.lifts?.first)
    let darkStart = lift.start + p.downSeconds
    let dark = lifted.samples[Int(darkStart * 100)..<Int((darkStart + p.darkSeconds) * 100)]
    #expect(dark.allSatisfy { Double($0) < 0.06 * lifted.parameters.dcCounts })
    #expect(!lifted.visibleBeats.contains { lift.contains($0.seconds) })
    #expect(lifted.beats.contains { lift.contains($0.seconds) && !$0.visible })
    #expect(lifted.excludedSpans.contains { $0.start <= lift.start && $0.end >= lift.end })
  }

  @Test("The sidecar reads as the shared data set's do, and carries the exact truth")
  func sidecar() throws {
    let record = try EvalSet.record(Self.spec(.prematureCompensatory, 50, seconds: 60))
    let data = try record.sidecar().encoded()
    let decoded = try EvalSidecar.decode(data)
    #expect(decoded == record.sidecar())
    #expect(decoded.beatTimesS.count == decoded.beats.count)
    #expect(zip(decoded.beats, decoded.beatTimesS).allSatisfy { abs(Double($0) / 50 - $1) <= 0.5 / 50 + 1e-9 })
    #expect(!decoded.prematureBeats.isEmpty || record.beats.allSatisfy { !$0.premature })
    // stressmon's own reader takes it: rate, polarity, reference beats.
    let shared = try JSONDecoder().decode(RecordingSidecar.self, from: data)
    #expect(shared.fs == 50)
    #expect(shared.polarity == .inverted)
    #expect(shared.beats == decoded.beats)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["beat_times_s"] != nil && object["excluded_s"] != nil && object["parameters"] != nil)
  }
}
