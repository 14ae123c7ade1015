import Platform
@testable import StressModel
import Testing

@Suite("Descriptive statistics")
struct StatisticsTests {
  @Test("Percentiles interpolate linearly between ranks, as numpy's default")
  func percentiles() {
    let values = [15.0, 20, 35, 40, 50]
    #expect(Statistics.percentile(values, 0) == 15)
    #expect(Statistics.percentile(values, 100) == 50)
    #expect(Statistics.percentile(values, 50) == 35)
    // rank 0.4 × 4 = 1.6 → 20 + 0.6 × 15 = 29
    #expect(abs(Statistics.percentile(values, 40)! - 29) < 1e-12)
    #expect(Statistics.percentile([], 50) == nil)
  }

  @Test("The median by selection is the sorted median, whatever the order, size and ties")
  func medianBySelection() {
    var random = SplitMix64(seed: 7)
    for count in 1...130 {
      for shape in 0..<4 {
        var values = (0..<count).map { _ in Double(Int.random(in: 0..<(shape == 1 ? 5 : 1_000), using: &random)) }
        if shape == 2 { values.sort() }
        if shape == 3 { values.sort(by: >) }
        #expect(Statistics.median(values) == Statistics.percentile(sorted: values.sorted(), 50), "\(values)")
      }
    }
    #expect(Statistics.median([]) == nil)
  }

  @Test("A sorted window's median and largest are those of its last values, to the bit, whatever the ties")
  func sortedWindow() {
    var random = SplitMix64(seed: 11)
    for capacity in [1, 2, 8, 60] {
      for spread in [3, 1_000] {
        var window = SortedRecentValues(capacity: capacity)
        var pushed: [Double] = []
        #expect(window.median == nil && window.largest == nil)
        for _ in 0..<400 {
          let value = Double(Int.random(in: 0..<spread, using: &random)) / 7
          window.push(value)
          pushed.append(value)
          var last = Array(pushed.suffix(capacity))
          #expect(window.count == last.count)
          #expect(window.largest == last.max())
          #expect(window.median == Statistics.medianInPlace(&last, count: last.count), "\(pushed.suffix(capacity))")
        }
      }
    }
  }

  @Test("Tukey fences keep the bulk and drop far points")
  func outliers() {
    let kept = Statistics.removingOutliers([10, 11, 12, 13, 14, 100, -50])
    #expect(kept == [10, 11, 12, 13, 14])
  }

  @Test("Decimal formatting rounds half away from zero and pads")
  func formatting() {
    #expect((12.345).formatted(decimals: 1) == "12.3")
    #expect((0.05).formatted(decimals: 1) == "0.1")
    #expect((-3.14159).formatted(decimals: 2) == "-3.14")
    #expect((7.0).formatted(decimals: 0) == "7")
    #expect((2.5).formatted(decimals: 3) == "2.500")
    #expect((-0.0001).formatted(decimals: 2) == "0.00")
  }
}
