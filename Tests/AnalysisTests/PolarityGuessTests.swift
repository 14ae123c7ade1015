import Analysis
import PulseDSP
import Testing

@Suite("Polarity detection")
struct PolarityGuessTests {
  @Test("The guessed polarity matches the sidecar's (set by eye) on every shared recording")
  func guessesEveryRecording() throws {
    var wrong: [String] = []
    for name in RecordingRun.names {
      let (reader, blocks) = try RecordingRun.blocks(name)
      let samples = blocks.flatMap { $0.channels[0] }
      let rate = try #require(reader.sidecar?.fs)
      let truth: PulsePolarity = reader.sidecar?.polarity == .inverted ? .inverted : .normal
      let guess = try PolarityGuess.guess(samples: samples, rateHz: rate)
      if guess.polarity != truth { wrong.append("\(name): \(guess)") }
    }
    #expect(wrong.isEmpty, "\(wrong)")
  }

  @Test("A mirrored recording is guessed mirrored")
  func mirrored() throws {
    for name in ["heartpy_data", "bsn_fspo2_chn2", "systole_ppg"] {
      let (reader, blocks) = try RecordingRun.blocks(name)
      let samples = blocks.flatMap { $0.channels[0] }
      let rate = try #require(reader.sidecar?.fs)
      let upright = try PolarityGuess.guess(samples: samples, rateHz: rate).polarity
      let flipped = try PolarityGuess.guess(samples: samples.map { 0 &- $0 }, rateHz: rate).polarity
      #expect(upright != flipped, "\(name)")
    }
  }
}
