import ArgumentParser
import Indicators
import Monitor
import StressModel

// Option values as swift-argument-parser types: fixed sets are enums (`--help` lists them, shell completions
// offer them, a wrong value fails in the parser with exit 64); the rest are small types that keep their own
// messages and are checked in each command's `validate()`.

extension MonitorMode: ExpressibleByArgument {
  public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension StressCategory: ExpressibleByArgument {
  public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension EPaperModel: ExpressibleByArgument {
  public init?(argument: String) {
    guard let model = EPaperModel.named(argument) else { return nil }
    self = model
  }

  public static var allValueStrings: [String] { all.map(\.name) }
}

/// `--speed` of `record`: the sensor's pace, or as fast as the emulated sensor allows.
enum RecordSpeed: String, CaseIterable, ExpressibleByArgument {
  case realtime, max
}

/// `--speed` of `run`: realtime, max or a factor; completions offer the words, `validate()` explains a bad value.
struct SpeedArgument: ExpressibleByArgument {
  let text: String

  init(argument: String) { text = argument }

  static var defaultCompletionKind: CompletionKind { .list(["realtime", "max", "10"]) }

  func speed() throws(ValidationError) -> RunSpeed {
    guard let speed = RunSpeed(parsing: text) else {
      throw ValidationError(
        "--speed must be realtime, max or a factor such as 10 (at most \(Int(RunSpeed.maximumFactor))), got '\(text)'")
    }
    return speed
  }
}

/// `--source`: the board's sensor (`max30102`), `replay:FILE.csv` or `synthetic`; checked in `validate()`.
struct SourceArgument: ExpressibleByArgument {
  let text: String

  init(argument: String) { text = argument }

  static var defaultCompletionKind: CompletionKind { .list(["max30102", "synthetic", "replay:"]) }

  func check() throws(ValidationError) {
    do { _ = try PulseSourceSpec(parsing: text) } catch { throw ValidationError(error.description) }
  }
}

/// A number with a unit and a plausible range, kept as typed so that `validate()` can say what was wrong in the
/// flag's own terms ("--hrv 5000 ms is outside the plausible range 1-1000 ms") rather than the parser's.
struct NumberArgument: ExpressibleByArgument {
  let text: String

  init(argument: String) { text = argument }

  /// The number, if `text` is one and lies in `range`; else a usage error naming the flag: "abc", "-5", "nan" or
  /// "10000" never become a crash or a silently absurd result.
  func value(_ flag: String, unit: String, range: ClosedRange<Double>) throws(ValidationError) -> Double {
    guard let value = Double(text.trimmingCharacters(in: " \t")), value.isFinite else {
      throw ValidationError("\(flag) needs a number in \(unit), got '\(text)'")
    }
    guard range.contains(value) else {
      throw ValidationError(
        "\(flag) \(text) \(unit) is outside the plausible range "
          + "\(range.lowerBound.formatted(decimals: 0))-\(range.upperBound.formatted(decimals: 0)) \(unit)")
    }
    return value
  }
}
