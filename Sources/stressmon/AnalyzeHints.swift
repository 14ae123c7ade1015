import StressModel

extension AnalyzeReport {
  /// When no window fits the recording, what to do instead of reading "0": a shorter `--window` (at least
  /// `AnalyzeCommand.shortestWindowSeconds`, at most the recording's length), or a longer recording.
  var noWindowsHint: String? {
    guard record.windows.isEmpty else { return nil }
    let length = durationSeconds.formatted(decimals: 1)
    let window = windowSeconds.formatted(decimals: 0)
    let fits = durationSeconds.rounded(.down)
    guard fits >= AnalyzeCommand.shortestWindowSeconds else {
      return "\(file) is \(length) s long, shorter than the shortest window "
        + "(\(AnalyzeCommand.shortestWindowSeconds.formatted(decimals: 0)) s): record longer to get HRV windows"
    }
    return "\(file) is \(length) s long, shorter than one \(window) s window: "
      + "give --window \(fits.formatted(decimals: 0)) (or less) for windows of a short recording"
  }
}
