import PulseDSP
import Testing

@Suite("Beat detector behaviour: polarity, gaps, signal quality, adaptation, limits")
struct BeatDetectorBehaviourTests {
  @Test("Raw intensity read inverted gives exactly the beats of the same pulse read upright")
  func polarityIsExact() throws {
    // Given a conditioned BVP recording and its mirror image (what a raw-intensity channel looks like)
    let recording = try SharedRecording.load("bsn_bvp_rest")
    let mirrored = recording.samples.map { 0 &- $0 }
    // When the mirror is analysed with polarity .inverted
    let upright = try recording.detect().beats
    let flipped = try recording.detect(
      configuration: BeatDetectorConfiguration(sampleRateHz: recording.rateHz, polarity: .inverted), samples: mirrored
    ).beats
    // Then the beats are identical
    #expect(upright == flipped)
  }

  @Test("A large DC offset (an 18-bit raw intensity) changes nothing: the high-pass removes it exactly")
  func dcOffsetIsIrrelevant() throws {
    let recording = try SharedRecording.load("bsn_fspo2_chn1")
    let lifted = recording.samples.map { $0 + 150_000 }
    let base = try recording.detect().beats.map(\.positionQ16)
    let offset = try recording.detect(samples: lifted).beats.map(\.positionQ16)
    #expect(base == offset)
  }

  @Test("After reset(gap:) beats continue on the stream timeline, and nothing is found while settling")
  func gapKeepsTheTimeline() throws {
    // Given a recording cut in two with 5000 samples lost between the halves
    let recording = try SharedRecording.load("bsn_bvp_rest")
    let cut = 50_000
    let lost = 5_000
    var detector = try BeatDetector(sampleRateHz: recording.rateHz)
    var beats: [DetectedBeat] = []
    detector.process(Array(recording.samples[..<cut])) { if case .beat(let b) = $0 { beats.append(b) } }
    detector.reset(gap: lost)
    var afterGap: [DetectedBeat] = []
    var qualities: [SignalQuality] = []
    detector.process(Array(recording.samples[(cut + lost)...])) { event in
      switch event {
      case .beat(let b): afterGap.append(b)
      case .quality(let q, _, _): qualities.append(q)
      }
    }
    // Then the second half's beats sit where the uncut recording has them (same stream positions, ±1 sample)
    let uncut = try recording.detect().beats.filter { $0.position > Double(cut + lost) + 2 * recording.rateHz }
    let tail = afterGap.filter { $0.position > Double(cut + lost) + 2 * recording.rateHz }
    #expect(tail.count == uncut.count)
    for (a, b) in zip(tail, uncut) { #expect(abs(a.position - b.position) <= 1, "\(a.position) vs \(b.position)") }
    // ...no beat inside the settling time after the gap, and the detector said it was settling
    #expect(afterGap.allSatisfy { $0.position >= Double(cut + lost) + 0.5 * recording.rateHz })
    #expect(qualities.first == .settling)
    #expect(detector.position == Int64(recording.samples.count))
  }

  @Test("A flat or all-zero input is 'no contact' and gives no beats")
  func flatIsNoContact() throws {
    for value: Int32 in [0, 120_000] {
      var detector = try BeatDetector(sampleRateHz: 100)
      var beats = 0
      var quality: SignalQuality?
      detector.process([Int32](repeating: value, count: 3_000)) { event in
        switch event {
        case .beat: beats += 1
        case .quality(let q, _, _): quality = q
        }
      }
      #expect(beats == 0)
      #expect(quality == .noContact)
    }
  }

  @Test("Quantisation noise of an idle channel (±1 LSB) is flat, and no beats come out of it")
  func idleNoiseIsFlat() throws {
    var state: UInt32 = 12_345  // fixed-seed LCG: the same "noise" every run
    let noise = (0..<6_000).map { _ -> Int32 in
      state = state &* 1_664_525 &+ 1_013_904_223
      return 51_200 + Int32(state >> 31)
    }
    var detector = try BeatDetector(sampleRateHz: 100)
    var beats = 0
    detector.process(noise) { if case .beat = $0 { beats += 1 } }
    #expect(beats == 0)
    #expect(detector.quality == .noContact)
  }

  @Test("A finger lifted off a raw-intensity sensor (light drops to noisy ambient) is 'no contact', not beats")
  func fingerLiftedFromRawIntensity() throws {
    // Given raw intensity at a MAX30102-like level, with 20 s of ambient light (300 ± 15 counts) in the middle
    let recording = try SharedRecording.load("bsn_fspo2_chn1")
    var samples = recording.samples.map { $0 + 150_000 }
    var state: UInt32 = 77  // fixed-seed LCG: the same noise every run
    let from = 40_000
    let to = 60_000
    for i in from..<to {
      state = state &* 1_664_525 &+ 1_013_904_223
      samples[i] = 285 + Int32(state >> 27)
    }
    let (beats, qualities) = try recording.detect(samples: samples)
    let start = Double(recording.skipped + from)
    let end = Double(recording.skipped + to)
    // Then: no contact within half a second, at most the beat in flight when it happened, and beats again
    // within two seconds of the finger coming back
    #expect(qualities.contains { $0.0 == .noContact && abs(Double($0.1) - start) <= 0.5 * recording.rateHz })
    #expect(beats.filter { $0.position > start + 300 && $0.position < end }.isEmpty)
    let firstAfter = try #require(beats.first { $0.position > end })
    #expect(firstAfter.position - end < 2 * recording.rateHz)
  }

  @Test(
    "A finger lifted for 50 s gives no beats from the ambient light; put back at a fifth of the old light, beats resume",
    arguments: [1, 5])
  func longLiftAndLighterReturn(lighterBy divisor: Int32) throws {
    // Given raw intensity with 50 s of ambient light (300 ± 15 counts), then the finger back at the old light or at
    // a fifth of it
    let recording = try SharedRecording.load("bsn_fspo2_chn1")
    var samples = recording.samples.map { $0 + 150_000 }
    var state: UInt32 = 78
    let from = 15_000
    let to = 65_000
    for i in from..<to {
      state = state &* 1_664_525 &+ 1_013_904_223
      samples[i] = 285 + Int32(state >> 27)
    }
    for i in to..<samples.count { samples[i] /= divisor }
    let (beats, qualities) = try recording.detect(samples: samples)
    let start = Double(recording.skipped + from)
    let end = Double(recording.skipped + to)
    // Then: no contact throughout (the old level is remembered beyond the lift), no beat from the ambient light,
    // and beats again within three seconds of the finger coming back, about one per 0.72 s (83 bpm)
    #expect(qualities.contains { $0.0 == .noContact && abs(Double($0.1) - start) <= 0.5 * recording.rateHz })
    #expect(!qualities.contains { $0.0 != .noContact && Double($0.1) > start + 500 && Double($0.1) < end })
    #expect(beats.filter { $0.position > start + 300 && $0.position < end }.isEmpty)
    let firstAfter = try #require(beats.first { $0.position > end })
    #expect(firstAfter.position - end < 3 * recording.rateHz)
    let after = beats.filter { $0.position > end + 5 * recording.rateHz }.count
    let expected = (Double(samples.count) - Double(to) - 5 * recording.rateHz) / (0.72 * recording.rateHz)
    #expect(Double(after) > 0.9 * expected)
  }

  @Test("An input pinned at an 18-bit rail is 'saturated'; beats stop there and resume after it")
  func railIsSaturated() throws {
    // Given raw intensity (pulses down) with 10 s pinned at 2^18 − 1 in the middle
    let recording = try SharedRecording.load("bsn_fspo2_chn1")
    var samples = recording.samples.map { $0 + 150_000 }
    let from = 40_000
    let to = 50_000
    for i in from..<to { samples[i] = 262_143 }
    let (beats, qualities) = try recording.detect(samples: samples)
    let start = Double(recording.skipped + from)
    let end = Double(recording.skipped + to)
    #expect(qualities.contains { $0.0 == .saturated && Double($0.1) >= start - 1_000 && Double($0.1) <= start + 1_000 })
    #expect(!beats.contains { $0.position > start + 300 && $0.position < end })
    #expect(beats.filter { $0.position > end + 3 * recording.rateHz }.count >= 30)
  }

  @Test("Peaks clipped at an 8-bit rail are reported as 'clipped' while beats go on")
  func clippedPeaksKeepBeating() throws {
    // systole_ppg's finger oximeter hits 255 at its peaks for stretches (sidecar notes).
    let recording = try SharedRecording.load("systole_ppg")
    let (beats, qualities) = try recording.detect()
    let clipped = qualities.filter { $0.0 == .clipped }
    #expect(!clipped.isEmpty)
    let inClipped = clipped.filter { start in beats.contains { $0.position > Double(start.1) && $0.position < Double(start.1) + 1.5 * recording.rateHz } }
    #expect(inClipped.count * 2 >= clipped.count)
  }

  @Test("The threshold follows a sudden 4x amplitude drop within a few beats")
  func followsAmplitudeDrop() throws {
    // Given a clean recording whose second half is attenuated to a quarter (a gain change)
    let recording = try SharedRecording.load("bsn_bvp_rest")
    let step = 50_000
    var samples = recording.samples
    let level = samples[step]
    for i in step..<samples.count { samples[i] = level + (samples[i] - level) / 4 }
    let original = try recording.detect().beats.map(\.position)
    let attenuated = try recording.detect(samples: samples).beats.map(\.position)
    // Then, after at most 5 beats, every original beat is found again (±20 ms)
    let after = original.filter { $0 > Double(step) }
    let recovered = after.dropFirst(5)
    let missing = recovered.filter { p in !attenuated.contains { abs($0 - p) <= 20 } }
    #expect(missing.count <= 1, "missed \(missing.count) of \(recovered.count) after the drop")
  }

  @Test("Full-scale input never overflows: alternating Int32 extremes and a full-scale square wave")
  func extremesDoNotOverflow() throws {
    for rate in [25.0, 100.0, 1000.0, 2048.0] {
      var detector = try BeatDetector(sampleRateHz: rate)
      let period = Int(rate)  // 1 Hz square wave between the extremes
      let square = (0..<Int(rate * 20)).map { ($0 / (period / 2)) % 2 == 0 ? Int32.max : Int32.min }
      let alternating = (0..<Int(rate * 5)).map { $0 % 2 == 0 ? Int32.max : Int32.min }
      var beats: [DetectedBeat] = []
      detector.process(square + alternating) { if case .beat(let b) = $0 { beats.append(b) } }
      #expect(beats.allSatisfy { $0.position >= 0 && $0.position <= Double(square.count + alternating.count) })
    }
  }

  @Test("Rates outside 10 Hz-100 kHz, and NaN, are refused with a message naming the rate")
  func refusesBadRates() {
    for rate in [0.0, 5, 9.99, 200_000, .nan, .infinity] {
      #expect(throws: BeatDetectorError.self) { _ = try BeatDetector(sampleRateHz: rate) }
    }
    #expect(BeatDetectorError.unsupportedRate(5).description.contains("5.0 Hz"))
    #expect((try? BeatDetector(sampleRateHz: 2048))?.decimationFactor == 16)
    #expect((try? BeatDetector(sampleRateHz: 100))?.decimationFactor == 1)
  }
}
