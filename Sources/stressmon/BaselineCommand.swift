import ArgumentParser
import CommandSupport
import Platform
import Store
import StressModel

/// `stressmon baseline`: the personal baseline the stress level is measured against, and its reset.
struct BaselineCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "baseline",
    abstract: "Show or reset your personal baseline (the HRV and resting heart rate stress is measured against).",
    discussion: """
      The baseline is the mean HRV (SDNN) of your good measurement windows of the last 30 days, outliers \
      removed, and your resting heart rate (the 10th percentile of window heart rates). It needs at least 30 \
      good windows (about 5 minutes of good signal); until then the default (HRV 50 ms, resting HR 60 bpm) is \
      used and shown as "learning". The monitor recomputes it weekly, or sooner after many new windows.

      --reset forgets the personal baseline: the default applies again and only windows stored from now on \
      count (e.g. after a change of medication, or when someone else starts wearing the sensor). The history \
      keeps every computation and reset.

      Examples:
        stressmon baseline
        stressmon baseline --history 10 --json
        sudo stressmon baseline --reset
      """
  )

  @Flag(help: "Show the current baseline and its recent history (the default).")
  var show = false

  @Flag(help: "Forget the personal baseline and start learning again.")
  var reset = false

  @Option(help: ArgumentHelp("How many history entries to show (default 5).", valueName: "n"))
  var history = 5

  @Flag(name: .long, help: "Print one JSON object on stdout.")
  var json = false

  @OptionGroup var database: DatabaseOption

  func run() throws {
    if show && reset { throw CLIFailure.usage("--show and --reset cannot be combined: pick one") }
    if history < 0 { throw CLIFailure.usage("--history needs zero or more entries, got \(history)") }
    let now = SystemStoreClock().reading().wall
    let calculator = BaselineCalculator()
    let store = try reset ? database.openForWriting() : database.open()
    defer { store.close() }
    try StoreFailure.map(store.path) {
      if reset { try store.resetBaseline(at: now) }
      let baseline = try store.currentBaseline()
      let report = BaselineReport(
        baseline: baseline, reset: reset, eligibleWindows: try store.baselineWindowCount(calculator, now: now),
        minimumWindows: calculator.minimumWindows,
        nextRefresh: baseline.computedAt.map { $0 + calculator.refreshAgeSeconds },
        history: try store.baselineHistory(limit: history))
      if json {
        try CLIOutput.json(report)
      } else {
        for line in report.lines() { CLIOutput.line(line) }
      }
    }
  }
}

/// What `stressmon baseline` shows; also its `--json` shape (snake_case keys, times in Unix seconds).
struct BaselineReport: Encodable {
  struct Entry: Encodable {
    var event: String
    var recordedAt: Double
    var hrvMs: Double
    var restingHeartRateBpm: Double
    var personal: Bool
    var windowCount: Int

    enum CodingKeys: String, CodingKey {
      case event, personal
      case recordedAt = "recorded_at"
      case hrvMs = "hrv_ms"
      case restingHeartRateBpm = "resting_heart_rate_bpm"
      case windowCount = "window_count"
    }
  }

  var reset: Bool
  var personal: Bool
  var hrvMs: Double
  var restingHeartRateBpm: Double
  var windowCount: Int
  var computedAt: Double?
  var nextRefresh: Double?
  var eligibleWindows: Int
  var minimumWindows: Int
  var history: [Entry]

  init(
    baseline: PersonalBaseline, reset: Bool, eligibleWindows: Int, minimumWindows: Int, nextRefresh: Double?,
    history: [BaselineHistoryEntry]
  ) {
    self.reset = reset
    personal = baseline.isPersonal
    hrvMs = baseline.hrvMs
    restingHeartRateBpm = baseline.restingHeartRateBpm
    windowCount = baseline.windowCount
    computedAt = baseline.computedAt
    self.nextRefresh = baseline.isPersonal ? nextRefresh : nil
    self.eligibleWindows = eligibleWindows
    self.minimumWindows = minimumWindows
    self.history = history.map {
      Entry(
        event: $0.event.rawValue, recordedAt: $0.recordedAt, hrvMs: $0.baseline.hrvMs,
        restingHeartRateBpm: $0.baseline.restingHeartRateBpm, personal: $0.baseline.isPersonal,
        windowCount: $0.baseline.windowCount)
    }
  }

  enum CodingKeys: String, CodingKey {
    case reset, personal, history
    case hrvMs = "hrv_ms"
    case restingHeartRateBpm = "resting_heart_rate_bpm"
    case windowCount = "window_count"
    case computedAt = "computed_at"
    case nextRefresh = "next_refresh"
    case eligibleWindows = "eligible_windows"
    case minimumWindows = "minimum_windows"
  }

  func lines() -> [String] {
    var lines: [String] = []
    if reset { lines.append("Baseline reset: only windows stored from now on count towards the next one.") }
    let values = "HRV \(hrvMs.formatted(decimals: 1)) ms, resting heart rate \(restingHeartRateBpm.formatted(decimals: 0)) bpm"
    if personal, let computedAt {
      lines.append(
        "Personal baseline: \(values), from \(counted(windowCount, "window")), "
          + "computed \(ISO8601Time.formatLocal(computedAt)).")
      if let nextRefresh { lines.append("Next weekly refresh by \(ISO8601Time.formatLocal(nextRefresh)).") }
    } else {
      lines.append(
        "Learning: the default baseline (\(values)) is used until \(minimumWindows) good windows are stored; "
          + "\(min(eligibleWindows, minimumWindows)) of \(minimumWindows) so far.")
    }
    if !history.isEmpty {
      lines.append("History (newest first):")
      for entry in history {
        let what = entry.event == "reset"
          ? "reset"
          : entry.personal
            ? "HRV \(entry.hrvMs.formatted(decimals: 1)) ms, resting HR \(entry.restingHeartRateBpm.formatted(decimals: 0)) bpm, "
              + counted(entry.windowCount, "window")
            : "still learning (default kept)"
        lines.append("  \(ISO8601Time.formatLocal(entry.recordedAt))  \(what)")
      }
    }
    return lines
  }
}
