import Foundation
import Testing

@testable import PulseDSP

@Suite("Fixed-point filters")
struct FixedPointFilterTests {
  /// Gain of a filter for a sine of `frequency` Hz (amplitude 2^20 in Q8 units), from the last two seconds.
  private func gain(
    at frequency: Double, rate: Double, _ step: (Int64) -> Int64
  ) -> Double {
    let amplitude = Double(1 << 20)
    var peak: Int64 = 0
    let n = Int(rate * 12)
    for i in 0..<n {
      let x = Int64((amplitude * sin(2 * .pi * frequency * Double(i) / rate)).rounded())
      let y = step(x)
      if i > n - Int(rate * 2) { peak = max(peak, abs(y)) }
    }
    return Double(peak) / amplitude
  }

  @Test("The high-pass removes a large DC exactly and passes the pulse band")
  func highPass() {
    var filter = HighPassQ15(cornerHz: 0.5, sampleRateHz: 125)
    var last: Int64 = 0
    for _ in 0..<2_000 { last = filter.step(Int64(200_000) << 8) }
    #expect(abs(last) <= 1)
    var passband = HighPassQ15(cornerHz: 0.5, sampleRateHz: 125)
    #expect(gain(at: 1.2, rate: 125) { passband.step($0) } > 0.9)
    var stopband = HighPassQ15(cornerHz: 0.5, sampleRateHz: 125)
    #expect(gain(at: 0.05, rate: 125) { stopband.step($0) } < 0.15)
  }

  @Test("The Butterworth low-pass keeps the pulse (1-3 Hz) and removes mains (50 Hz) at every working rate")
  func lowPass() {
    for rate in [100.0, 125.0, 128.0, 200.0, 249.0] {
      var pulse = ButterworthLowPassQ16(cornerHz: 8, sampleRateHz: rate)
      #expect(abs(gain(at: 1.2, rate: rate) { pulse.step($0) } - 1) < 0.01, "\(rate) Hz")
      var third = ButterworthLowPassQ16(cornerHz: 8, sampleRateHz: rate)
      #expect(gain(at: 3.5, rate: rate) { third.step($0) } > 0.95, "\(rate) Hz")
      var mains = ButterworthLowPassQ16(cornerHz: 8, sampleRateHz: rate)
      #expect(gain(at: 45, rate: rate) { mains.step($0) } < 0.06, "\(rate) Hz")  // ≥ 24 dB down
    }
  }

  @Test("The low-pass group delay used to correct beat times matches the delay of a 1.2 Hz sine within 0.1 sample")
  func groupDelay() {
    let rate = 125.0
    var filter = ButterworthLowPassQ16(cornerHz: 8, sampleRateHz: rate)
    // The zero crossing of the output lags the input's by the phase delay, which for a second-order
    // Butterworth well below its corner is within a few hundredths of a sample of the group delay.
    var previous: Int64 = 0
    var crossings: [Double] = []
    for i in 0..<Int(rate * 10) {
      let x = Int64((Double(1 << 20) * sin(2 * .pi * 1.2 * Double(i) / rate)).rounded())
      let y = filter.step(x)
      if i > Int(rate * 5), previous < 0, y >= 0 { crossings.append(Double(i - 1) + Double(-previous) / Double(y - previous)) }
      previous = y
    }
    let period = rate / 1.2
    let lag = crossings.map { $0.truncatingRemainder(dividingBy: period) }.reduce(0, +) / Double(crossings.count)
    #expect(abs(lag - filter.groupDelaySamples) < 0.1, "measured \(lag), computed \(filter.groupDelaySamples)")
  }

  /// `scipy.signal.butter(2, fc, fs=fs)` (scipy 1.17.1, the peers' venv), printed with `b.tolist(), a.tolist()`:
  /// b = b0 · [1, 2, 1], a = [1, a1, a2]. The cases are working rates the detector runs at (1000 Hz / 8,
  /// 2048 Hz / 16, 200 Hz, 400 Hz / 3) and the slow watch, whose corner is 0.4 × 19.581 Hz.
  static let scipyButterworth: [(fc: Double, fs: Double, b0: Double, a1: Double, a2: Double)] = [
    (8, 125, 0.031238923679686247, -1.4415303099387247, 0.5664860046574697),
    (8, 128, 0.029954582208092474, -1.454243586251585, 0.5740619150839549),
    (8, 200, 0.013359200027856505, -1.6474599810769768, 0.7008967811884027),
    (8, 400.0 / 3, 0.02785976611713602, -1.475480443592646, 0.5869195080611902),
    (0.4 * 19.581, 19.581, 0.6389455251590223, 1.1429805025399007, 0.41280159809618844),
  ]

  @Test("The low-pass design equals scipy.signal.butter(2, fc, fs) and its Q16 quantisation is within half an LSB")
  func lowPassDesignMatchesScipy() {
    for c in Self.scipyButterworth {
      let design = ButterworthLowPassDesign(cornerHz: c.fc, sampleRateHz: c.fs)
      let expected = [c.b0, 2 * c.b0, c.b0, 1, c.a1, c.a2]
      let ours = design.numerator + design.denominator
      for (a, b) in zip(ours, expected) { #expect(abs(a - b) < 1e-12, "\(c.fs) Hz: \(ours) vs scipy \(expected)") }
      for (q, x) in [(design.b0Q16, c.b0), (design.a1Q16, c.a1), (design.a2Q16, c.a2)] {
        #expect(abs(Double(q) - x * 65_536) <= 0.5, "\(c.fs) Hz: \(q) vs \(x * 65_536)")
      }
    }
    // scipy.signal.group_delay((b, a), w=[1.2], fs=125) on the 8 Hz / 125 Hz design: 3.54687689 samples. The
    // detector's delay comes from the quantised coefficients; it stays within a hundredth of a sample.
    let design = ButterworthLowPassDesign(cornerHz: 8, sampleRateHz: 125)
    #expect(abs(design.groupDelaySamples - 3.54687689) < 0.01, "\(design.groupDelaySamples)")
  }

  @Test("The high-pass pole e^(-2π fc/fs) matches scipy's first-order Butterworth high-pass pole at working rates")
  func highPassDesignMatchesScipy() {
    // scipy.signal.butter(1, 0.5, 'highpass', fs=fs): a = [1, -p]. The impulse-invariant pole and the bilinear
    // one agree to third order in fc/fs: within 1e-5 at the rates the detector works at.
    for (fs, pole) in [(125.0, 0.9751778761806492), (128.0, 0.9757526499323765), (200.0, 0.9844141274160969)] {
      let design = HighPassDesign(cornerHz: 0.5, sampleRateHz: fs)
      #expect(abs(design.coefficient - pole) < 1e-5, "\(fs) Hz: \(design.coefficient) vs \(pole)")
      #expect(design.denominator == [1, -design.coefficient])
      #expect(abs(Double(design.coefficientQ15) - design.coefficient * 32_768) <= 0.5)
    }
  }

  @Test("The boxcar decimator returns the exact mean in Q8 for any factor")
  func decimator() {
    for factor in [1, 2, 8, 16, 1024] {
      var decimator = BoxcarDecimator(factor: factor)
      var ready = false
      for i in 0..<factor { ready = decimator.add(Int32(1000 + i)) }
      #expect(ready)
      let expected = (1000.0 + Double(factor - 1) / 2) * 256
      #expect(abs(Double(decimator.takeMeanQ8()) - expected) <= 1, "factor \(factor)")
    }
    var extremes = BoxcarDecimator(factor: 1024)
    for _ in 0..<1024 { _ = extremes.add(Int32.max) }
    #expect(extremes.takeMeanQ8() >> 8 == Int64(Int32.max))
  }

  @Test("The running median of five follows the last five values")
  func recentMedian() {
    var median = RecentMedian()
    #expect(median.isEmpty && median.median == 0)
    for (value, expected) in [(10, 10), (30, 20), (20, 20), (50, 25), (40, 30), (1, 30), (2, 20)] {
      median.push(Int64(value))
      #expect(median.median == Int64(expected), "after \(value)")
    }
    median.scale(byQ15: 1 << 14)
    #expect(median.median == 10)
    // Against a plain sort, over a fixed pseudo-random sequence.
    var state: UInt64 = 99
    var brute = RecentMedian()
    var window: [Int64] = []
    for _ in 0..<500 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let value = Int64(state >> 44) - 500_000
      brute.push(value)
      window.append(value)
      if window.count > 5 { window.removeFirst() }
      let sorted = window.sorted()
      let n = sorted.count
      #expect(brute.median == (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2))
    }
  }
}
