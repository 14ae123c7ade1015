import PulseDSP
import StressModel

/// Everything a whole-recording analysis produced, collected from `PulseAnalyzer`'s events (what
/// `stressmon analyze` prints). Memory grows with the recording: for files, not for the daemon.
public struct AnalysisRecord: Sendable {
  // MARK: - Properties

  /// Beats in stream order.
  public private(set) var beats: [AnalysisBeat] = []
  /// Every judged interval in stream order.
  public private(set) var intervals: [InterBeatInterval] = []
  /// Finished windows in order.
  public private(set) var windows: [HRVWindowSummary] = []
  /// Quality changes (state, stream seconds) in order.
  public private(set) var qualityChanges: [(quality: SignalQuality, seconds: Double)] = []
  /// Lost samples reported by the source.
  public private(set) var lostSamples = 0

  public init() {}

  // MARK: - Public

  public mutating func add(_ event: AnalysisEvent) {
    switch event {
    case .beat(let beat): beats.append(beat)
    case .interval(let interval): intervals.append(interval)
    case .window(let window): windows.append(window)
    case .quality(let quality, let seconds): qualityChanges.append((quality, seconds))
    case .gap(let samples, _): lostSamples += samples
    }
  }

  /// Clean intervals, ms, in order.
  public var cleanIntervalsMs: [Double] { intervals.filter { $0.isClean }.map { $0.milliseconds } }

  /// Rejected intervals (implausible, irregular or unverified).
  public var rejectedCount: Int { intervals.count - intervals.filter { $0.isClean }.count }

  /// HRV of every clean interval of the recording, successive differences only within runs.
  public var overallHRV: HRVMetrics? { HRVMetrics(segmentsMs: InterBeatInterval.cleanRuns(intervals)) }

  /// Largest latency of a reported beat, seconds (0 without beats).
  public var maximumLatencySeconds: Double { beats.map { $0.latencySeconds }.max() ?? 0 }

  /// Share of the stream (of `durationSeconds`) spent in each detector state.
  public func qualityShares(durationSeconds: Double) -> [SignalQuality: Double] {
    var shares: [SignalQuality: Double] = [:]
    guard durationSeconds > 0 else { return shares }
    for (i, change) in qualityChanges.enumerated() {
      let end = i + 1 < qualityChanges.count ? qualityChanges[i + 1].seconds : durationSeconds
      let span = min(end, durationSeconds) - change.seconds
      if span > 0 { shares[change.quality, default: 0] += span / durationSeconds }
    }
    return shares
  }
}
