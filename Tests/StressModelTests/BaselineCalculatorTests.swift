import StressModel
import Testing

@Suite("Personal baseline")
struct BaselineCalculatorTests {
  let day = 86_400.0
  let calculator = BaselineCalculator()

  func windows(count: Int, hrv: (Int) -> Double, hr: (Int) -> Double, spacing: Double = 600, end: Double) -> [BaselineCalculator.Window] {
    (0..<count).map { BaselineCalculator.Window(time: end - Double(count - 1 - $0) * spacing, hrvMs: hrv($0), heartRateBpm: hr($0)) }
  }

  @Test("Fewer than 30 valid windows → the default baseline, reported as not personal")
  func tooFewWindows() {
    let now = 100 * day
    let few = windows(count: 29, hrv: { _ in 45 }, hr: { _ in 70 }, end: now)
    #expect(calculator.baseline(from: few, now: now) == .default)
  }

  @Test("Mean HRV after 1.5×IQR outlier removal and resting HR at the 10th percentile")
  func meanAndPercentile() throws {
    let now = 100 * day
    // HRV 40...79 (40 windows) plus two outliers at 300 and 2 ms (2 ms is also below the validity floor).
    var input = windows(count: 40, hrv: { 40 + Double($0) }, hr: { 60 + Double($0) }, end: now)
    input.append(.init(time: now - 10, hrvMs: 300, heartRateBpm: 65))
    input.append(.init(time: now - 20, hrvMs: 2, heartRateBpm: 65))
    let baseline = calculator.baseline(from: input, now: now)
    #expect(baseline.isPersonal)
    // 41 valid HRVs (40...79, 300): Q1 = 50.0, Q3 = 70.0, IQR 20 → fence 100: 300 removed; mean of 40...79 = 59.5
    #expect(baseline.windowCount == 40)
    #expect(abs(baseline.hrvMs - 59.5) < 1e-9)
    // HRs of the 41 valid windows: 60...99 and 65; sorted, rank 0.1 × 40 = 4 → the 5th smallest: 60,61,62,63,64 → 64
    #expect(abs(baseline.restingHeartRateBpm - 64) < 1e-9)
  }

  @Test("Only the last 30 days count")
  func lookbackWindow() {
    let now = 100 * day
    let old = windows(count: 40, hrv: { _ in 90 }, hr: { _ in 50 }, spacing: 600, end: now - 31 * day)
    let recent = windows(count: 30, hrv: { _ in 40 }, hr: { _ in 70 }, spacing: 600, end: now)
    let baseline = calculator.baseline(from: old + recent, now: now)
    #expect(baseline.isPersonal)
    #expect(baseline.hrvMs == 40)
    #expect(baseline.restingHeartRateBpm == 70)
  }

  @Test("Recomputed when a week old or after enough new windows; the default is always due")
  func refreshRule() {
    #expect(calculator.isDue(computedAt: nil, now: 0, newWindows: 0))
    #expect(!calculator.isDue(computedAt: 0, now: 6 * day, newWindows: 10))
    #expect(calculator.isDue(computedAt: 0, now: 7 * day, newWindows: 0))
    #expect(calculator.isDue(computedAt: 0, now: day, newWindows: calculator.refreshNewWindows))
  }
}
