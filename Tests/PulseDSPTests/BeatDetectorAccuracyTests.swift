import Foundation
import PulseDSP
import TestSupport
import Testing

@Suite("Beat detector accuracy on the shared real recordings")
struct BeatDetectorAccuracyTests {
  @Test("F1 against the ECG reference of pyphysio_medical is at least 0.97 (±150 ms, lag removed)")
  func f1AgainstECGReference() throws {
    // Given the one recording with an independent reference (R-peaks of a simultaneous ECG)
    let recording = try SharedRecording.load("pyphysio_medical")
    #expect(recording.referenceKind == "ecg_rpeaks")
    // When the detector runs over it
    let beats = try recording.detect().beats
    // Then, scored as the peers' score.py scores NeuroKit2 (0.961) and HeartPy (0.930)
    let score = BeatScoring.score(
      reference: recording.reference.map(Double.init), detected: beats.map(\.position), rateHz: recording.rateHz,
      ecgReference: true, sampleCount: recording.samples.count + recording.skipped)
    // Measured: 0.978 (TP 135, FN 3, FP 3). The chain's IBI cleaner takes out one of the false beats: the 0.98 the
    // issue asks of the reported beats is AnalysisTests' (PulseAnalyzerTests.f1OfReportedBeats).
    #expect(score.f1 >= 0.97, "F1 \(score.f1): TP \(score.truePositives) FN \(score.falseNegatives) FP \(score.falsePositives)")
    // The pulse arrives ~360 ms after the R-peak here (sidecar notes): the lag is physiological, not ours.
    let lagMs = score.lagSamples / recording.rateHz * 1000
    #expect(lagMs > 300 && lagMs < 420, "lag \(lagMs) ms")
  }

  @Test("Beats agree with NeuroKit2's Elgendi detector on every recording where NeuroKit2 is clean")
  func agreementWithNeuroKit2() throws {
    // Given NeuroKit2's beats (committed fixture, scripts/bench-peers-fixture) and a cleanliness test: at least
    // 95 % of its intervals plausible and within 20 % of their local median
    let fixture = try PeerFixture.load()
    var compared = 0
    for name in SharedRecording.names {
      guard let peer = fixture[name], peer.beats.count > 10 else { continue }
      let recording = try SharedRecording.load(name)
      guard PeerFixture.cleanShare(peer.beats, rateHz: recording.rateHz) >= 0.95 else { continue }
      // When our detector runs
      let beats = try recording.detect().beats
      // Then the two agree within ±150 ms
      let score = BeatScoring.score(
        reference: peer.beats.map(Double.init), detected: beats.map(\.position), rateHz: recording.rateHz,
        ecgReference: false, sampleCount: recording.samples.count + recording.skipped)
      #expect(score.f1 >= 0.95, "\(name): F1 vs NeuroKit2 \(score.f1) (\(beats.count) vs \(peer.beats.count) beats)")
      compared += 1
    }
    // Where NeuroKit2 is clean: 9 of the 14 recordings with the fixture as committed.
    #expect(compared >= 8)
  }

  @Test("Every recording gives a plausible heart rate (35-200 bpm) and no beat closer than the refractory period")
  func plausibleEverywhere() throws {
    for name in SharedRecording.names {
      let recording = try SharedRecording.load(name)
      let beats = try recording.detect().beats
      let duration = Double(recording.samples.count) / recording.rateHz
      #expect(Double(beats.count) >= duration * 35 / 60 * 0.5, "\(name): only \(beats.count) beats in \(duration) s")
      let intervals = zip(beats.dropFirst(), beats).map { ($0.position - $1.position) / recording.rateHz }
      let median = intervals.sorted()[intervals.count / 2]
      #expect((60 / 200...60 / 35).contains(median), "\(name): median interval \(median) s")
      #expect(intervals.allSatisfy { $0 >= 0.25 - 1.5 / recording.rateHz }, "\(name): beats closer than 250 ms")
    }
  }

  @Test("Beats found in real time come within the latency bound (< 300 ms from 25 Hz); recovered ones with the next")
  func latencyBound() throws {
    for name in SharedRecording.names {
      let recording = try SharedRecording.load(name)
      let detector = try BeatDetector(sampleRateHz: recording.rateHz, polarity: recording.polarity)
      if recording.rateHz >= 25 { #expect(detector.maximumLatencySeconds <= 0.3, "\(name)") }
      let beats = try recording.detect().beats
      for (i, beat) in beats.enumerated() {
        let latency = Double(beat.reportedAt) - beat.position
        if beat.recovered {
          // Reported together with the beat that revealed it (same input sample, after at most one more recovered
          // beat), which is itself within the bound.
          let revealing = beats[(i + 1)...].prefix(2).first { !$0.recovered }
          #expect(
            revealing?.reportedAt == beat.reportedAt
              && beats[(i + 1)...].prefix(while: \.recovered).allSatisfy { $0.reportedAt == beat.reportedAt },
            "\(name): recovered beat at \(beat.position) not followed by the beat that revealed it")
        } else {
          #expect(
            latency >= 0 && latency <= Double(detector.maximumLatencySamples), "\(name): latency \(latency) samples")
        }
      }
    }
  }

  @Test("The same pulses sampled at 25, 50, 100 and 250 Hz give the same beats; IBIs within 2 ms RMS at 100 Hz")
  func rateIndependence() throws {
    // Given a clean 1000 Hz recording and its boxcar-decimated versions (what a slower ADC would deliver)
    let recording = try SharedRecording.load("bsn_bvp_rest")
    let full = try recording.detect().beats.map { $0.position / recording.rateHz }
    for factor in [40, 20, 10, 4] {
      let slow = decimate(recording.samples, by: factor)
      let rate = recording.rateHz / Double(factor)
      let beats = try recording.detect(
        configuration: BeatDetectorConfiguration(sampleRateHz: rate, polarity: recording.polarity), samples: slow
      ).beats
      // Sample k of the slow signal is the mean of input samples kF...kF+F−1: its time is kF + (F−1)/2.
      let times = beats.map { ($0.position * Double(factor) + Double(factor - 1) / 2) / recording.rateHz }
      let pairs = BeatScoring.match(reference: full, detected: times, tolerance: 0.05)
      let f1 = Double(2 * pairs.count) / Double(full.count + times.count)
      #expect(f1 >= 0.97, "\(rate) Hz: F1 \(f1) against 1000 Hz")
      if factor == 10 {
        // IBI agreement where both detectors found the same consecutive beats (an offset cancels out).
        var squares = 0.0
        var n = 0
        for k in 1..<pairs.count where pairs[k].0 == pairs[k - 1].0 + 1 && pairs[k].1 == pairs[k - 1].1 + 1 {
          let a = full[pairs[k].0] - full[pairs[k - 1].0]
          let b = times[pairs[k].1] - times[pairs[k - 1].1]
          squares += (a - b) * (a - b)
          n += 1
        }
        let rms = (squares / Double(max(1, n))).squareRoot() * 1000
        #expect(n > 100 && rms <= 2, "IBI RMS difference at 100 Hz: \(rms) ms over \(n) intervals")
      }
    }
  }

  @Test("Slower and faster hearts: the same pulses read at 0.6x and 2x their rate keep their beats (41-194 bpm)")
  func heartRateRange() throws {
    // Reading the samples at another rate stretches or compresses time: heartpy_data3 read at 0.6x beats at
    // 58 bpm with its secondary wave 0.5 s after each peak (the double-rate trap); at 2x, 194 bpm.
    for (name, factor) in [("heartpy_data3", 0.6), ("heartpy_data3", 2.0), ("bsn_bvp_rest", 0.6), ("bsn_bvp_rest", 2.0),
                           ("systole_ppg", 0.6), ("systole_ppg", 2.0)] {
      let recording = try SharedRecording.load(name)
      let base = try recording.detect().beats.map(\.position)
      let scaled = try recording.detect(
        configuration: BeatDetectorConfiguration(sampleRateHz: recording.rateHz * factor, polarity: recording.polarity)
      ).beats.map(\.position)
      let pairs = BeatScoring.match(reference: base, detected: scaled, tolerance: 0.05 * recording.rateHz)
      let f1 = Double(2 * pairs.count) / Double(base.count + scaled.count)
      #expect(f1 >= 0.95, "\(name) read at \(factor)x: F1 \(f1) (\(scaled.count) beats vs \(base.count))")
    }
  }

  private func decimate(_ samples: [Int32], by factor: Int) -> [Int32] {
    stride(from: 0, to: samples.count - factor + 1, by: factor).map { start in
      var sum: Int64 = 0
      for i in start..<start + factor { sum += Int64(samples[i]) }
      return Int32(sum / Int64(factor))
    }
  }
}

/// NeuroKit2's beats from Tests/Fixtures/peers/nk_elgendi.json.
enum PeerFixture {
  struct Entry {
    var beats: [Int]
    var fs: Double
  }

  static func load() throws -> [String: Entry] {
    let url = URL(fileURLWithPath: SharedData.repositoryRoot + "/Tests/Fixtures/peers/nk_elgendi.json")
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    var entries: [String: Entry] = [:]
    for (name, value) in object where !name.hasPrefix("_") {
      guard let entry = value as? [String: Any], let beats = entry["beats"] as? [Int], let fs = entry["fs"] as? Double
      else { continue }
      entries[name] = Entry(beats: beats, fs: fs)
    }
    return entries
  }

  /// Share of a beat series' intervals that are plausible (300-2000 ms) and within 20 % of the median of
  /// the ±5 around them (score.py's clean-up rule).
  static func cleanShare(_ beats: [Int], rateHz: Double) -> Double {
    let intervals = zip(beats.dropFirst(), beats).map { Double($0 - $1) / rateHz * 1000 }
    guard !intervals.isEmpty else { return 0 }
    var clean = 0
    for i in intervals.indices {
      let around = intervals[max(0, i - 5)...min(intervals.count - 1, i + 5)].sorted()
      let m = around.count
      let median = m % 2 == 1 ? around[m / 2] : (around[m / 2 - 1] + around[m / 2]) / 2
      if abs(intervals[i] - median) <= 0.2 * median && (300...2000).contains(intervals[i]) { clean += 1 }
    }
    return Double(clean) / Double(intervals.count)
  }
}
