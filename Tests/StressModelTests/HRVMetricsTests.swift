import StressModel
import TestSupport
import Testing

@Suite("HRV metrics")
struct HRVMetricsTests {
  @Test("SDNN and RMSSD of pyhrv's 60-minute NN series match pyhrv's own report to 0.01 ms")
  func pyhrvLongSeriesMatchesOracle() throws {
    // Given pyhrv 0.5.0's sample NN series, whose SampleReport gives SDNN 85.357 ms and RMSSD 60.523 ms
    let nni = try SharedData.column("rr/pyhrv_nni_long.csv")
    #expect(nni.count == 4684)
    // When
    let metrics = try #require(HRVMetrics(intervalsMs: nni))
    // Then
    #expect(abs(metrics.sdnnMs - 85.357) < 0.01)
    #expect(abs(metrics.rmssdMs - 60.523) < 0.01)
    #expect(metrics.intervals == 4684)
  }

  @Test("Metrics of a small series equal the values worked out by hand")
  func handComputedSeries() throws {
    // 800, 850, 780, 900: mean 832.5; deviations -32.5, 17.5, -52.5, 67.5; sum of squares 8675; /3 → 2891.667
    // successive differences 50, -70, 120 → squares 2500, 4900, 14400 → mean 7266.667; >50 ms: 2 of 3
    let metrics = try #require(HRVMetrics(intervalsMs: [800, 850, 780, 900]))
    #expect(abs(metrics.sdnnMs - 2891.6667.squareRoot()) < 1e-3)
    #expect(abs(metrics.rmssdMs - 7266.6667.squareRoot()) < 1e-3)
    #expect(abs(metrics.pnn50 - 200.0 / 3) < 1e-9)
    #expect(abs(metrics.meanHeartRateBpm - 60_000 / 832.5) < 1e-9)
  }

  @Test("Successive differences are not taken across a gap between segments")
  func segmentsDoNotStitchAcrossGaps() throws {
    // Two runs at very different rates: across the gap the difference would be 400 ms.
    let metrics = try #require(HRVMetrics(segmentsMs: [[600, 610, 600], [1000, 1010, 1000]]))
    #expect(abs(metrics.rmssdMs - 10) < 1e-9)
    #expect(metrics.pnn50 == 0)
  }

  @Test("Too few intervals give no metrics rather than a made-up number")
  func tooFewIntervals() {
    #expect(HRVMetrics(intervalsMs: []) == nil)
    #expect(HRVMetrics(intervalsMs: [800, 810]) == nil)
  }

  @Test("The short pyhrv series and systole's RR series give plausible resting figures")
  func otherSeriesArePlausible() throws {
    for file in ["rr/pyhrv_nni_short.csv", "rr/systole_rr.csv"] {
      let metrics = try #require(HRVMetrics(intervalsMs: try SharedData.column(file)))
      #expect((40...120).contains(metrics.meanHeartRateBpm), "\(file)")
      #expect((5...200).contains(metrics.sdnnMs), "\(file)")
    }
  }
}
