import StressModel

/// Parses a numeric command-line value with a range check, so that "abc", "-5", "nan" or "10000" become one
/// clear usage error naming the flag, never a crash or a silently absurd result.
enum NumericOption {
  static func parse(_ text: String, flag: String, unit: String, range: ClosedRange<Double>) throws -> Double {
    let trimmed = text.trimmingCharacters(in: " \t")
    guard let value = Double(trimmed), value.isFinite else {
      throw CLIFailure.usage("\(flag) needs a number in \(unit), got '\(text)'")
    }
    guard range.contains(value) else {
      throw CLIFailure.usage(
        "\(flag) \(text) \(unit) is outside the plausible range "
          + "\(range.lowerBound.formatted(decimals: 0))-\(range.upperBound.formatted(decimals: 0)) \(unit)")
    }
    return value
  }
}

extension String {
  func trimmingCharacters(in set: String) -> String {
    var s = Substring(self)
    while let f = s.first, set.contains(f) { s.removeFirst() }
    while let l = s.last, set.contains(l) { s.removeLast() }
    return String(s)
  }
}
