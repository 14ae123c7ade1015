import Analysis
import PulseDSP
import StressModel

/// The QEMU firmware's output parsed back into analysis events (format: Embedded/Firmware/EventWriter.swift):
/// Doubles arrive as bit patterns, so the events are the firmware's values exactly.
struct FirmwareOutput {
  var events: [AnalysisEvent] = []
  /// The closing `E` and `L` lines: counts, counter ticks, bytes.
  var figures: [String: Int64] = [:]

  struct Malformed: Error, CustomStringConvertible {
    var line: String
    var description: String { "unreadable firmware output line: \(line)" }
  }

  init(text: String) throws {
    for line in text.split(separator: "\n") {
      var words = Words(line: line)
      switch try words.next() {
      case "B":
        let beat = DetectedBeat(
          positionQ16: try words.integer(), reportedAt: try words.integer(), amplitudeQ8: try words.integer(),
          upslopeQ8: try words.integer(), recovered: try words.integer() != 0,
          replacesPrevious: try words.integer() != 0, extraPeaks: UInt8(clamping: try words.integer()),
          shapeQ8: Int16(clamping: try words.integer()))
        events.append(.beat(AnalysisBeat(beat: beat, seconds: try words.double(), latencySeconds: try words.double())))
      case "I":
        events.append(
          .interval(
            InterBeatInterval(
              startSeconds: try words.double(), endSeconds: try words.double(),
              verdict: try words.caseOf(InterBeatInterval.Verdict.self), segment: Int(try words.integer()))))
      case "Q":
        guard let quality = SignalQuality(rawValue: UInt8(try words.integer())) else { throw Malformed(line: String(line)) }
        events.append(.quality(quality, atSeconds: try words.double(), rhythmOnly: try words.integer() != 0))
      case "G":
        events.append(.gap(samples: Int(try words.integer()), atSeconds: try words.double()))
      case "W":
        events.append(.window(try Self.window(&words)))
      case "E", "L":
        while let key = words.optionalNext() { figures[key] = try words.integer() }
      default:
        throw Malformed(line: String(line))
      }
    }
  }

  private static func window(_ words: inout Words) throws -> HRVWindowSummary {
    let start = try words.double()
    let end = try words.double()
    let quality = try words.caseOf(WindowQuality.self)
    let clean = Int(try words.integer())
    let rejected = Int(try words.integer())
    let coverage = try words.double()
    var metrics: HRVMetrics?
    if try words.next() == "M" {
      metrics = HRVMetrics(
        sdnnMs: try words.double(), rmssdMs: try words.double(), pnn50: try words.double(),
        meanHeartRateBpm: try words.double(), intervals: Int(try words.integer()))
    }
    var stress: StressResult?
    if try words.next() == "S" {
      let level = try words.double()
      let confidence = try words.double()
      let hrv = try words.double()
      let heartRate = try words.double()
      let baseline = PersonalBaseline(
        hrvMs: try words.double(), restingHeartRateBpm: try words.double(), isPersonal: try words.integer() == 1,
        windowCount: Int(try words.integer()), computedAt: try words.optionalDouble())
      stress = StressResult(level: level, confidence: confidence, hrvMs: hrv, heartRateBpm: heartRate, baseline: baseline)
    }
    return HRVWindowSummary(
      startSeconds: start, endSeconds: end, quality: quality, metrics: metrics, cleanIntervals: clean,
      rejectedIntervals: rejected, coverage: coverage, stress: stress)
  }

  /// The words of one line, read in order.
  private struct Words {
    let line: Substring
    var rest: [Substring]

    init(line: Substring) {
      self.line = line
      rest = line.split(separator: " ").reversed()
    }

    mutating func optionalNext() -> String? { rest.popLast().map(String.init) }

    mutating func next() throws -> String {
      guard let word = optionalNext() else { throw Malformed(line: String(line)) }
      return word
    }

    mutating func integer() throws -> Int64 {
      guard let value = Int64(try next()) else { throw Malformed(line: String(line)) }
      return value
    }

    mutating func double() throws -> Double {
      guard let bits = UInt64(try next(), radix: 16) else { throw Malformed(line: String(line)) }
      return Double(bitPattern: bits)
    }

    mutating func optionalDouble() throws -> Double? {
      let word = try next()
      if word == "-" { return nil }
      guard let bits = UInt64(word, radix: 16) else { throw Malformed(line: String(line)) }
      return Double(bitPattern: bits)
    }

    /// An enumeration written as its index in `allCases`.
    mutating func caseOf<T: CaseIterable>(_ type: T.Type) throws -> T where T.AllCases == [T] {
      let index = Int(try integer())
      guard T.allCases.indices.contains(index) else { throw Malformed(line: String(line)) }
      return T.allCases[index]
    }
  }
}
