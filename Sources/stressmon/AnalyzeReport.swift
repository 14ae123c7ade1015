import Analysis
import PulseDSP
import StressModel

/// What `stressmon analyze` prints: the JSON object (`--json`) or a readable summary, from one
/// `AnalysisRecord`.
struct AnalyzeReport {
  var file: String
  var rateHz: Double
  var samples: Int
  var polarity: PulsePolarity
  var polaritySource: String
  var windowSeconds: Double
  var stepSeconds: Double
  var record: AnalysisRecord

  var durationSeconds: Double { Double(samples) / rateHz }

  // MARK: - JSON

  var json: AnalyzeJSON {
    let hrv = record.overallHRV
    let shares = record.qualityShares(durationSeconds: durationSeconds)
    return AnalyzeJSON(
      file: file, rateHz: rateHz, samples: samples, durationS: rounded(durationSeconds, 3),
      polarity: polarity.rawValue, polaritySource: polaritySource,
      beats: record.beats.map(\.sampleIndex), beatTimesS: record.beats.map { rounded($0.seconds, 5) },
      ibiMs: record.cleanIntervalsMs.map { rounded($0, 2) },
      hrv: HRVJSON(
        sdnnMs: hrv.map { rounded($0.sdnnMs, 2) }, rmssdMs: hrv.map { rounded($0.rmssdMs, 2) },
        pnn50: hrv.map { rounded($0.pnn50, 2) }, meanHrBpm: hrv.map { rounded($0.meanHeartRateBpm, 2) },
        beats: hrv?.intervals ?? 0, rejected: record.rejectedCount),
      windows: record.windows.map(WindowJSON.init),
      windowS: windowSeconds, stepS: stepSeconds,
      signal: Dictionary(uniqueKeysWithValues: SignalQuality.allCases.map {
        (Self.key($0), rounded(shares[$0, default: 0], 4))
      }),
      latencyMsMax: rounded(record.maximumLatencySeconds * 1000, 1), lostSamples: record.lostSamples)
  }

  static func key(_ quality: SignalQuality) -> String {
    switch quality {
    case .settling: "settling"
    case .good: "good"
    case .noContact: "no_contact"
    case .saturated: "saturated"
    case .poorSignal: "poor_signal"
    }
  }

  // MARK: - Summary

  var summaryLines: [String] {
    var lines: [String] = []
    let source = polaritySource == "detected" ? "detected" : "from the \(polaritySource)"
    lines.append(
      "\(file): \(durationSeconds.formatted(decimals: 1)) s at \(rateHz.formatted(decimals: 3)) Hz, "
        + "\(polarity == .inverted ? "inverted (pulses down)" : "normal (pulses up)") polarity \(source)")
    let shares = record.qualityShares(durationSeconds: durationSeconds)
    let good = (shares[.good, default: 0] + shares[.settling, default: 0]) * 100
    var signal = "Signal: \(good.formatted(decimals: 0)) % usable"
    for quality in [SignalQuality.noContact, .saturated, .poorSignal] where shares[quality, default: 0] > 0 {
      signal += ", \((shares[quality, default: 0] * 100).formatted(decimals: 0)) % \(quality)"
    }
    lines.append(signal)
    if let hrv = record.overallHRV {
      lines.append(
        "Beats: \(record.beats.count); clean intervals \(hrv.intervals), rejected \(record.rejectedCount); "
          + "heart rate \(hrv.meanHeartRateBpm.formatted(decimals: 1)) bpm")
      lines.append(
        "HRV: SDNN \(hrv.sdnnMs.formatted(decimals: 1)) ms, RMSSD \(hrv.rmssdMs.formatted(decimals: 1)) ms, "
          + "pNN50 \(hrv.pnn50.formatted(decimals: 1)) %")
    } else {
      lines.append("Beats: \(record.beats.count); too few clean intervals for HRV (rejected \(record.rejectedCount))")
    }
    let scored = record.windows.filter { $0.stress != nil }.count
    lines.append(
      "Windows (\(windowSeconds.formatted(decimals: 0)) s, every \(stepSeconds.formatted(decimals: 0)) s): "
        + "\(record.windows.count), \(scored) scored, \(record.windows.count - scored) uncategorised")
    for window in record.windows {
      var line = "  \(window.startSeconds.formatted(decimals: 0))-\(window.endSeconds.formatted(decimals: 0)) s  "
      if let stress = window.stress, let metrics = window.metrics {
        line += "\(stress.category.rawValue) \(stress.level.formatted(decimals: 0)) "
          + "(SDNN \(metrics.sdnnMs.formatted(decimals: 0)) ms, HR \(metrics.meanHeartRateBpm.formatted(decimals: 0)) bpm, "
          + "confidence \(stress.confidence.formatted(decimals: 2)))"
      } else {
        line += "uncategorised: \(window.quality.displayText)"
      }
      lines.append(line)
    }
    return lines
  }
}

/// The `--json` object. Keys are snake_case; absent figures are `null`, never omitted.
struct AnalyzeJSON: Encodable {
  var file: String
  var rateHz: Double
  var samples: Int
  var durationS: Double
  var polarity: String
  var polaritySource: String
  var beats: [Int64]
  var beatTimesS: [Double]
  var ibiMs: [Double]
  var hrv: HRVJSON
  var windows: [WindowJSON]
  var windowS: Double
  var stepS: Double
  /// Share of the recording in each detector state.
  var signal: [String: Double]
  var latencyMsMax: Double
  var lostSamples: Int

  enum CodingKeys: String, CodingKey {
    case file, samples, polarity, beats, hrv, windows, signal
    case rateHz = "rate_hz", durationS = "duration_s", polaritySource = "polarity_source"
    case beatTimesS = "beat_times_s", ibiMs = "ibi_ms", windowS = "window_s", stepS = "step_s"
    case latencyMsMax = "latency_ms_max", lostSamples = "lost_samples"
  }
}

struct HRVJSON: Encodable {
  var sdnnMs: Double?
  var rmssdMs: Double?
  var pnn50: Double?
  var meanHrBpm: Double?
  var beats: Int
  var rejected: Int

  enum CodingKeys: String, CodingKey {
    case pnn50, beats, rejected
    case sdnnMs = "sdnn_ms", rmssdMs = "rmssd_ms", meanHrBpm = "mean_hr_bpm"
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(sdnnMs, forKey: .sdnnMs)
    try c.encode(rmssdMs, forKey: .rmssdMs)
    try c.encode(pnn50, forKey: .pnn50)
    try c.encode(meanHrBpm, forKey: .meanHrBpm)
    try c.encode(beats, forKey: .beats)
    try c.encode(rejected, forKey: .rejected)
  }
}

struct WindowJSON: Encodable {
  var startS: Double
  var endS: Double
  var sdnnMs: Double?
  var rmssdMs: Double?
  var heartRateBpm: Double?
  var stressLevel: Double?
  var category: String
  var confidence: Double?
  var quality: String
  var beats: Int
  var rejected: Int
  var coverage: Double

  init(_ window: HRVWindowSummary) {
    startS = rounded(window.startSeconds, 3)
    endS = rounded(window.endSeconds, 3)
    sdnnMs = window.metrics.map { rounded($0.sdnnMs, 2) }
    rmssdMs = window.metrics.map { rounded($0.rmssdMs, 2) }
    heartRateBpm = window.metrics.map { rounded($0.meanHeartRateBpm, 2) }
    stressLevel = window.stress.map { rounded($0.level, 1) }
    category = window.stress?.category.rawValue ?? "uncategorised"
    confidence = window.stress.map { rounded($0.confidence, 3) }
    quality = window.quality.rawValue
    beats = window.cleanIntervals
    rejected = window.rejectedIntervals
    coverage = rounded(window.coverage, 3)
  }

  enum CodingKeys: String, CodingKey {
    case category, confidence, quality, beats, rejected, coverage
    case startS = "start_s", endS = "end_s", sdnnMs = "sdnn_ms", rmssdMs = "rmssd_ms"
    case heartRateBpm = "heart_rate_bpm", stressLevel = "stress_level"
  }

  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(startS, forKey: .startS)
    try c.encode(endS, forKey: .endS)
    try c.encode(sdnnMs, forKey: .sdnnMs)
    try c.encode(rmssdMs, forKey: .rmssdMs)
    try c.encode(heartRateBpm, forKey: .heartRateBpm)
    try c.encode(stressLevel, forKey: .stressLevel)
    try c.encode(category, forKey: .category)
    try c.encode(confidence, forKey: .confidence)
    try c.encode(quality, forKey: .quality)
    try c.encode(beats, forKey: .beats)
    try c.encode(rejected, forKey: .rejected)
    try c.encode(coverage, forKey: .coverage)
  }
}

/// `value` rounded to `decimals` places (for stable, readable JSON).
func rounded(_ value: Double, _ decimals: Int) -> Double {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  return (value * scale).rounded() / scale
}
