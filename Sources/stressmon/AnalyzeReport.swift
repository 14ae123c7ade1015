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
    // The reported beats' samples and times in one pass (a day has 100 000 beats). The figures are kept as computed
    // and rounded once, where they are written (`JSONText.number(_:places:)`).
    var beats: [Int64] = [], times: [Double] = []
    beats.reserveCapacity(record.beats.count)
    times.reserveCapacity(record.beats.count)
    for (beat, artefact) in zip(record.beats, record.isArtefact) where !artefact {
      beats.append(beat.sampleIndex)
      times.append(beat.seconds)
    }
    return AnalyzeJSON(
      file: file, rateHz: rateHz, samples: samples, durationS: durationSeconds,
      polarity: polarity.rawValue, polaritySource: polaritySource,
      beats: beats, beatTimesS: times, ibiMs: record.cleanIntervalsMs,
      hrv: HRVJSON(
        sdnnMs: hrv?.sdnnMs, rmssdMs: hrv?.rmssdMs, pnn50: hrv?.pnn50, meanHrBpm: hrv?.meanHeartRateBpm,
        beats: hrv?.intervals ?? 0, rejected: record.rejectedCount),
      windows: record.windows.map(WindowJSON.init),
      windowS: windowSeconds, stepS: stepSeconds,
      signal: Dictionary(uniqueKeysWithValues: SignalQuality.allCases.map {
        (Self.key($0), shares[$0, default: 0])
      }),
      latencyMsMax: record.maximumLatencySeconds * 1000, lostSamples: record.lostSamples,
      recoveredBeats: record.recoveredCount, artefactBeats: record.artefactCount)
  }

  static func key(_ quality: SignalQuality) -> String {
    switch quality {
    case .settling: "settling"
    case .good: "good"
    case .noContact: "no_contact"
    case .saturated: "saturated"
    case .clipped: "clipped"
    case .poorSignal: "poor_signal"
    }
  }

  // MARK: - Summary

  /// "812", or "812 (3 found by search-back; 2 false detections left out)".
  var beatCountText: String {
    let recovered = record.recoveredCount, artefacts = record.artefactCount
    var notes: [String] = []
    if recovered > 0 { notes.append("\(recovered) found by search-back") }
    if artefacts > 0 { notes.append("\(artefacts) false detection\(artefacts == 1 ? "" : "s") left out") }
    let count = "\(record.beats.count - artefacts)"
    return notes.isEmpty ? count : count + " (" + notes.joined(separator: "; ") + ")"
  }

  var summaryLines: [String] {
    var lines: [String] = []
    let source = polaritySource == "detected" ? "detected" : "from the \(polaritySource)"
    lines.append(
      "\(file): \(durationSeconds.formatted(decimals: 1)) s at \(rateHz.formatted(decimals: 3)) Hz, "
        + "\(polarity == .inverted ? "inverted (pulses down)" : "normal (pulses up)") polarity \(source)")
    let shares = record.qualityShares(durationSeconds: durationSeconds)
    let good = (shares[.good, default: 0] + shares[.settling, default: 0]) * 100
    var signal = "Signal: \(good.formatted(decimals: 0)) % usable"
    for quality in [SignalQuality.noContact, .saturated, .clipped, .poorSignal] where shares[quality, default: 0] > 0 {
      signal += ", \((shares[quality, default: 0] * 100).formatted(decimals: 0)) % \(quality)"
    }
    lines.append(signal)
    if let hrv = record.overallHRV {
      lines.append(
        "Beats: \(beatCountText); clean intervals \(hrv.intervals), rejected \(record.rejectedCount); "
          + "heart rate \(hrv.meanHeartRateBpm.formatted(decimals: 1)) bpm")
      lines.append(
        "HRV: SDNN \(hrv.sdnnMs.formatted(decimals: 1)) ms, RMSSD \(hrv.rmssdMs.formatted(decimals: 1)) ms, "
          + "pNN50 \(hrv.pnn50.formatted(decimals: 1)) %")
    } else {
      lines.append("Beats: \(beatCountText); too few clean intervals for HRV (rejected \(record.rejectedCount))")
    }
    let scored = record.windows.filter { $0.stress != nil }.count
    lines.append(
      "Windows (\(windowSeconds.formatted(decimals: 0)) s, every \(stepSeconds.formatted(decimals: 0)) s): "
        + "\(record.windows.count), \(scored) scored, \(record.windows.count - scored) uncategorised")
    if let hint = noWindowsHint { lines.append("  " + hint) }
    for window in record.windows {
      var line = "  \(window.startSeconds.formatted(decimals: 0))-\(window.endSeconds.formatted(decimals: 0)) s  "
      if let stress = window.stress, let metrics = window.metrics {
        line += "\(stress.category.rawValue) \(StressLevel.text(stress.level)) "
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

/// The `--json` object. Keys are snake_case and sorted; absent figures are `null`, never omitted. Written by
/// hand (`JSONText`) rather than JSONEncoder: a day-long recording has 100 000 beats, and encoding them
/// took longer than finding them.
struct AnalyzeJSON {
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
  /// Beats found by search-back (in `beats`; reported late, so not in `latency_ms_max`).
  var recoveredBeats: Int
  /// Detections left out of `beats`: the IBI cleaner's patterns and the beats' sizes showed them to be false (an
  /// extra beat weaker than both neighbours; the start of a premature pair under half its neighbours' size), or the
  /// detector replaced them (`DetectedBeat.replacesPrevious`). `AnalysisRecord.reportedBeats` has the rules.
  var artefactBeats: Int

  /// The object, written (a day-long recording's is megabytes: it goes to stdout from the writer's buffer).
  var document: JSONText {
    // The windows, about half the work of a long recording's text, are written on a second thread meanwhile.
    var unwritten: [WindowJSON]? = windows
    let windowsText = ThreadPipe<JSONText, Never>(capacity: 1) { () -> JSONText? in
      guard let windows = unwritten else { return nil }
      unwritten = nil
      let json = JSONText(capacity: 360 * windows.count, depth: 1)
      json.array(windows) { w, window in window.write(w) }
      return json
    }
    windowsText.start()
    // About 9 bytes a beat number, 11 a time, 8 an interval and 330 a window: one buffer, grown at most once.
    let json = JSONText(capacity: 64 + 10 * beats.count + 12 * beatTimesS.count + 9 * ibiMs.count + 360 * windows.count)
    json.object { o in
      o.field("artefact_beats") { $0.integer(Int64(artefactBeats)) }
      o.field("beat_times_s") { $0.numbers(beatTimesS, places: 5) }
      o.field("beats") { $0.integers(beats) }
      o.field("duration_s") { $0.number(durationS, places: 3) }
      o.field("file") { $0.string(file) }
      o.field("hrv") { hrv.write($0) }
      o.field("ibi_ms") { $0.numbers(ibiMs, places: 2) }
      o.field("latency_ms_max") { $0.number(latencyMsMax, places: 1) }
      o.field("lost_samples") { $0.integer(Int64(lostSamples)) }
      o.field("polarity") { $0.string(polarity) }
      o.field("polarity_source") { $0.string(polaritySource) }
      o.field("rate_hz") { $0.number(rateHz) }
      o.field("recovered_beats") { $0.integer(Int64(recoveredBeats)) }
      o.field("samples") { $0.integer(Int64(samples)) }
      o.field("signal") { j in
        j.object { inner in
          for key in signal.keys.sorted() { inner.field(key) { $0.number(signal[key], places: 4) } }
        }
      }
      o.field("step_s") { $0.number(stepS) }
      o.field("window_s") { $0.number(windowS) }
      o.field("windows") { j in
        if let written = windowsText.next() { j.append(written) }
      }
    }
    return json
  }
}

struct HRVJSON {
  var sdnnMs: Double?
  var rmssdMs: Double?
  var pnn50: Double?
  var meanHrBpm: Double?
  var beats: Int
  var rejected: Int

  func write(_ json: JSONText) {
    json.object { o in
      o.field("beats") { $0.integer(Int64(beats)) }
      o.field("mean_hr_bpm") { $0.number(meanHrBpm, places: 2) }
      o.field("pnn50") { $0.number(pnn50, places: 2) }
      o.field("rejected") { $0.integer(Int64(rejected)) }
      o.field("rmssd_ms") { $0.number(rmssdMs, places: 2) }
      o.field("sdnn_ms") { $0.number(sdnnMs, places: 2) }
    }
  }
}

struct WindowJSON {
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
    startS = window.startSeconds
    endS = window.endSeconds
    sdnnMs = window.metrics?.sdnnMs
    rmssdMs = window.metrics?.rmssdMs
    heartRateBpm = window.metrics?.meanHeartRateBpm
    stressLevel = window.stress.map(\.level)
    category = window.stress?.category.rawValue ?? "uncategorised"
    confidence = window.stress.map(\.confidence)
    quality = window.quality.rawValue
    beats = window.cleanIntervals
    rejected = window.rejectedIntervals
    coverage = window.coverage
  }

  func write(_ json: JSONText) {
    json.object { o in
      o.field("beats") { $0.integer(Int64(beats)) }
      o.field("category") { $0.string(category) }
      o.field("confidence") { $0.number(confidence) }
      o.field("coverage") { $0.number(coverage, places: 3) }
      o.field("end_s") { $0.number(endS, places: 3) }
      o.field("heart_rate_bpm") { $0.number(heartRateBpm, places: 2) }
      o.field("quality") { $0.string(quality) }
      o.field("rejected") { $0.integer(Int64(rejected)) }
      o.field("rmssd_ms") { $0.number(rmssdMs, places: 2) }
      o.field("sdnn_ms") { $0.number(sdnnMs, places: 2) }
      o.field("start_s") { $0.number(startS, places: 3) }
      o.field("stress_level") { $0.number(stressLevel) }
    }
  }
}
