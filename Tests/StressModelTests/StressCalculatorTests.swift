import Platform
import StressModel
import Testing

@Suite("Stress level, categories and moods")
struct StressCalculatorTests {
  let calculator = StressCalculator()
  let baseline = PersonalBaseline(hrvMs: 50, restingHeartRateBpm: 60, isPersonal: true, windowCount: 40, computedAt: 0)

  @Test("Category boundaries are half-open at exactly 25, 50 and 75", arguments: [
    (0.0, StressCategory.relaxed), (24.999, .relaxed), (25, .mild), (49.999, .mild), (50, .moderate),
    (74.999, .moderate), (75, .high), (100, .high),
  ])
  func categoryBoundaries(level: Double, expected: StressCategory) {
    #expect(StressCategory(level: level) == expected)
  }

  @Test("Mood boundaries are half-open at exactly 10, 25, 50 and 75", arguments: [
    (0.0, StressMood.sleeping), (9.999, .sleeping), (10, .calm), (24.999, .calm), (25, .concerned),
    (49.999, .concerned), (50, .worried), (74.999, .worried), (75, .overwhelmed), (100, .overwhelmed),
  ])
  func moodBoundaries(level: Double, expected: StressMood) {
    #expect(StressMood(level: level) == expected)
  }

  @Test("Out-of-range and NaN levels are clamped, never categorised as a made-up high")
  func clamping() {
    #expect(StressCategory(level: -5) == .relaxed)
    #expect(StressCategory(level: 140) == .high)
    #expect(StressCategory(level: .nan) == .relaxed)
  }

  @Test("HRV above baseline and HR below resting both clamp to 0: stress 0")
  func bothComponentsClampToZero() {
    let level = calculator.level(hrvMs: 65, heartRateBpm: 52, baseline: baseline)
    #expect(level == 0)
    #expect(StressCategory(level: level) == .relaxed)
    #expect(StressMood(level: level) == .sleeping)
  }

  @Test("HRV at half the baseline, HR at resting: 100 × 0.7 × 0.5^0.8 = 40.204")
  func halfBaselineHRV() {
    // 0.5^0.8 = e^(0.8 × ln 0.5) = e^(-0.554518) = 0.574349; × 70 = 40.2044
    let level = calculator.level(hrvMs: 25, heartRateBpm: 60, baseline: baseline)
    #expect(abs(level - 40.2044) < 1e-3)
    #expect(StressCategory(level: level) == .mild)
    #expect(StressMood(level: level) == .concerned)
  }

  @Test("HRV at baseline, HR at twice resting: 100 × 0.3 × atan(2)/(π/2) = 21.145")
  func doubleRestingHeartRate() {
    // atan(2) = 1.107149 rad; / 1.570796 = 0.704833; × 30 = 21.145
    let level = calculator.level(hrvMs: 50, heartRateBpm: 120, baseline: baseline)
    #expect(abs(level - 21.145) < 1e-3)
    #expect(StressCategory(level: level) == .relaxed)
    #expect(StressMood(level: level) == .calm)
  }

  @Test("Both components: nHRV 0.2, nHR 0.25 → 70 × 0.2^0.8 + 30 × atan(0.5)/(π/2) = 28.171")
  func bothComponents() {
    // 0.2^0.8 = 0.275946 → 19.316; atan(0.5) = 0.463648 → 0.295167 → 8.855; sum 28.171
    let level = calculator.level(hrvMs: 40, heartRateBpm: 75, baseline: baseline)
    #expect(abs(level - 28.171) < 1e-3)
    #expect(StressCategory(level: level) == .mild)
  }

  @Test("A level constructed to land on each boundary lands in the upper category", arguments: [25.0, 50.0])
  func formulaAtBoundary(target: Double) {
    // With HR at resting, level = 70 × nHRV^0.8, so nHRV = (target/70)^1.25 and HRV = baseline × (1 − nHRV).
    // A hair above (1e-9) keeps floating-point rounding from deciding the category.
    let nHRV = pow((target + 1e-9) / 70, 1.25)
    let level = calculator.level(hrvMs: 50 * (1 - nHRV), heartRateBpm: 60, baseline: baseline)
    #expect(abs(level - target) < 1e-6)
    #expect(StressCategory(level: level) == StressCategory(level: target))
  }

  @Test("Very low HRV and a racing pulse reach high stress, capped at 100")
  func highStress() {
    let level = calculator.level(hrvMs: 1, heartRateBpm: 300, baseline: baseline)
    // nHRV 0.98 → 0.98^0.8 = 0.983968 → 68.878; nHR 4 → atan(8)/(π/2) = 0.920833 → 27.625; 96.503
    #expect(abs(level - 96.503) < 1e-3)
    #expect(StressCategory(level: level) == .high)
    #expect(StressMood(level: level) == .overwhelmed)
  }

  @Test("Confidence is full with good evidence and drops with each weakness")
  func confidenceFactors() {
    let good = StressCalculator.Evidence(beats: 60, rejectedShare: 0)
    #expect(calculator.confidence(hrvMs: 45, heartRateBpm: 65, baseline: baseline, evidence: good) == 1)
    #expect(abs(calculator.confidence(hrvMs: 15, heartRateBpm: 65, baseline: baseline, evidence: good) - 0.3) < 1e-12)
    #expect(abs(calculator.confidence(hrvMs: 45, heartRateBpm: 200, baseline: baseline, evidence: good) - 0.3) < 1e-12)
    let fewBeats = StressCalculator.Evidence(beats: 25, rejectedShare: 0)
    #expect(abs(calculator.confidence(hrvMs: 45, heartRateBpm: 65, baseline: baseline, evidence: fewBeats) - 0.5) < 1e-12)
    let artefacts = StressCalculator.Evidence(beats: 60, rejectedShare: 0.1)
    #expect(abs(calculator.confidence(hrvMs: 45, heartRateBpm: 65, baseline: baseline, evidence: artefacts) - 0.8) < 1e-12)
    #expect(abs(calculator.confidence(hrvMs: 45, heartRateBpm: 65, baseline: .default, evidence: good) - 0.7) < 1e-12)
  }
}
