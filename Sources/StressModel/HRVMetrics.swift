/// Time-domain HRV of a run of clean inter-beat intervals (milliseconds), as in the Task Force 1996 standard and
/// pyhrv: SDNN with n − 1, RMSSD over successive differences, pNN50 in percent, mean HR from the mean IBI.
public struct HRVMetrics: Sendable, Equatable, Codable {
  /// Standard deviation of the intervals, ms (sample SD, n − 1).
  public var sdnnMs: Double
  /// Root mean square of successive differences, ms.
  public var rmssdMs: Double
  /// Share of successive differences larger than 50 ms, in percent (0-100).
  public var pnn50: Double
  /// 60 000 / mean interval, beats per minute.
  public var meanHeartRateBpm: Double
  /// Number of intervals the figures come from.
  public var intervals: Int

  public init(sdnnMs: Double, rmssdMs: Double, pnn50: Double, meanHeartRateBpm: Double, intervals: Int) {
    self.sdnnMs = sdnnMs
    self.rmssdMs = rmssdMs
    self.pnn50 = pnn50
    self.meanHeartRateBpm = meanHeartRateBpm
    self.intervals = intervals
  }

  /// Metrics of a contiguous run of intervals; nil when fewer than 3 intervals (no meaningful spread).
  public init?(intervalsMs ibis: [Double]) {
    self.init(segmentsMs: [ibis])
  }

  /// Metrics over several contiguous runs separated by gaps: SDNN and the mean use every interval, while
  /// successive differences (RMSSD, pNN50) are taken only inside a run, never across a gap.
  public init?(segmentsMs segments: [[Double]]) {
    var all: [Double] = []
    var continuesRun: [Bool] = []
    for run in segments {
      for (i, ms) in run.enumerated() {
        all.append(ms)
        continuesRun.append(i > 0)
      }
    }
    self.init(orderedMs: all, continuesRun: continuesRun)
  }

  /// The same from the intervals in order, each with whether it continues the run of the one before it (the form
  /// HRV windows gather without building runs).
  init?(orderedMs all: [Double], continuesRun: [Bool]) {
    guard all.count >= 3, let mean = Statistics.mean(all), mean > 0,
      let sdnn = Statistics.sampleStandardDeviation(all)
    else { return nil }
    var squares = 0.0
    var differences = 0
    var over50 = 0
    for i in 1..<all.count where continuesRun[i] {
      let d = all[i] - all[i - 1]
      squares += d * d
      differences += 1
      if abs(d) > 50 { over50 += 1 }
    }
    guard differences > 0 else { return nil }
    self.init(
      sdnnMs: sdnn,
      rmssdMs: (squares / Double(differences)).squareRoot(),
      pnn50: 100 * Double(over50) / Double(differences),
      meanHeartRateBpm: 60_000 / mean,
      intervals: all.count
    )
  }
}
