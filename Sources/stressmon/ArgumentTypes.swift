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

/// Options whose text needs more than a fixed set: each is parsed once, by the option itself
/// (`@Option(transform:)`), so a bad value stops in the parser with exit 64 and one line that names the flag, the
/// value and what is wrong ("The value '5000' is invalid for '--hrv <ms>': outside the plausible range 1-1000 ms").
/// The commands' `run()` gets the parsed value and checks nothing twice.
enum OptionParse {
  /// A number in `unit` within `range`: "abc", "-5", "nan" or "10000" never become a crash or a silently absurd
  /// result.
  static func number(_ unit: String, _ range: ClosedRange<Double>) -> @Sendable (String) throws -> Double {
    { text in
      guard let value = Double(text.trimmingCharacters(in: " \t")), value.isFinite else {
        throw ValidationError("it needs a number in \(unit)")
      }
      guard range.contains(value) else {
        throw ValidationError(
          "it is outside the plausible range "
            + "\(range.lowerBound.formatted(decimals: 0))-\(range.upperBound.formatted(decimals: 0)) \(unit)")
      }
      return value
    }
  }

  /// `--speed` of `run`: realtime, max or a factor.
  static func speed(_ text: String) throws -> RunSpeed {
    guard let speed = RunSpeed(parsing: text) else {
      throw ValidationError(
        "give realtime, max or a factor such as 10 (at most \(Int(RunSpeed.maximumFactor)))")
    }
    return speed
  }

  /// `--source`: the board's sensor (`max30102`), `replay:FILE.csv` or `synthetic`; the text, checked.
  static func source(_ text: String) throws -> String {
    do { _ = try PulseSourceSpec(parsing: text) } catch { throw ValidationError(error.description) }
    return text
  }

  static let speedCompletion = CompletionKind.list(["realtime", "max", "10"])
  static let sourceCompletion = CompletionKind.list(["max30102", "synthetic", "replay:"])
}
