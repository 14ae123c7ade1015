import CommandSupport
import Indicators
import Monitor
import Platform
import StressModel
import SyncWire
import Synchronization

/// Prints the daemon's events: a timeline for people (state changes, windows, the LED timeline, panel
/// refreshes), or one JSON object per line with `--json` (the `event` key says which). Called from the
/// monitor's delivery task, so printing never holds up the sampling.
final class RunEventPrinter: Sendable {
  let json: Bool
  /// The last state line printed: the text timeline shows a state only when its words change (a new level every
  /// window is the window line's job).
  private let lastState = Mutex<String?>(nil)

  init(json: Bool) {
    self.json = json
  }

  func print(_ event: MonitorEvent) {
    if json {
      Self.emitLine(Self.jsonLine(event))
      return
    }
    if case .state(let status, _) = event {
      let text = Self.stateText(status)
      guard lastState.withLock({ last in
        defer { last = text }
        return last != text
      }) else { return }
    }
    if let text = Self.text(event) { Self.emitLine(text) }
  }

  /// One line straight to stdout: events are a live stream (a terminal, a pipe into another tool, the journal),
  /// so they are not held back in stdio's 4 KB buffer until it fills, as `print` does on a pipe.
  static func emitLine(_ text: String) {
    try? FileDescriptor.standardOutput.writeAll((text + "\n").utf8)
  }

  // MARK: - Text

  static func text(_ event: MonitorEvent) -> String? {
    switch event {
    case .started(let info):
      let board = info.board + (info.simulated ? " (simulated)" : "")
      var lines = ["stressmon run: \(info.mode.rawValue) mode on board \(board), "
        + "source \(info.source), speed \(info.speed), device \(info.deviceID)"]
      var outputs: [String] = []
      if let database = info.database { outputs.append("store \(database)") }
      if let leds = info.leds { outputs.append("LEDs \(leds)") }
      if let panel = info.panel { outputs.append("panel \(panel)" + (info.panelImage.map { " → \($0)" } ?? "")) }
      if let hub = info.hub { outputs.append("hub \(hub)") }
      if !outputs.isEmpty { lines.append("  " + outputs.joined(separator: " · ")) }
      return lines.joined(separator: "\n")
    case .state(let status, let at):
      return row(at.dataSeconds, "state", stateText(status))
    case .window(let record, let summary, let at):
      var text = "\(summary.endSeconds.formatted(decimals: 0)) s  "
      if let stress = summary.stress {
        text += "\(stress.category.rawValue.padded(8)) level \(StressLevel.text(stress.level, decimals: 1))"
      } else {
        text += "uncategorised (\(summary.quality.displayText))"
      }
      if let metrics = summary.metrics {
        text += "  HRV \(metrics.sdnnMs.formatted(decimals: 1)) ms"
          + "  HR \(metrics.meanHeartRateBpm.formatted(decimals: 0)) bpm"
      }
      text += record.baselinePersonal ? "  personal baseline" : "  default baseline"
      return row(at.dataSeconds, "window", text)
    case .baseline(let baseline, let at):
      if !baseline.isPersonal {
        return row(at.dataSeconds, "baseline",
          "default (HRV \(baseline.hrvMs.formatted(decimals: 0)) ms, resting HR "
            + "\(baseline.restingHeartRateBpm.formatted(decimals: 0)) bpm) until "
            + "\(BaselineCalculator().minimumWindows) good windows are stored")
      }
      return row(at.dataSeconds, "baseline",
        "personal: HRV \(baseline.hrvMs.formatted(decimals: 1)) ms, resting HR "
          + "\(baseline.restingHeartRateBpm.formatted(decimals: 0)) bpm from \(baseline.windowCount) windows")
    case .ledState(let state, let at):
      return row(at.dataSeconds, "LED", "\(state)" + (rhythm(state).map { " (\($0))" } ?? ""))
    case .leds(let frame):
      return "          LED" + frame.text
    case .ledsRepeat(let state, let period, _):
      return "                        … \(state) repeats every \((Double(period) / 1000).formatted(decimals: 1)) s"
    case .panelRefreshing:
      return nil
    case .panel(let decision, let image, let at):
      return row(at.dataSeconds, "panel", "\(decision)" + (image.map { " → \($0)" } ?? ""))
    case .gap(let samples, let at):
      return row(at.dataSeconds, "gap", "\(counted(samples, "sample")) lost (nothing is stitched across)")
    case .notice(let text, let at):
      return row(at.dataSeconds, "notice", text)
    case .kiosk(let latest, let at):
      guard let record = latest.record else {
        return row(at.dataSeconds, "hub", "no measurement of \(latest.deviceId) yet")
      }
      let what = record.category?.rawValue ?? "uncategorised (\(record.quality.displayText))"
      let age = latest.serverTime - record.windowEnd
      return row(at.dataSeconds, "hub", "\(latest.deviceId): \(what), \(age.formatted(decimals: 0)) s old")
    case .stopped(let summary):
      return summaryText(summary)
    }
  }

  static func stateText(_ status: MonitorStatus) -> String {
    var text = status.phase.description
    if let progress = status.baselineProgress, status.phase == .learningBaseline {
      text += " \(progress.windows)/\(progress.needed)"
    }
    if let category = status.category, status.phase != .measuring && status.phase != .learningBaseline {
      text += ", showing \(category.rawValue)"
    }
    if !status.faults.isEmpty {
      text = "error: " + status.faults.map(\.description).joined(separator: "; ") + " (" + text + ")"
    }
    if let dropped = status.droppedForSpace, dropped > 0 {
      text += "; disk full: \(counted(dropped, "measurement")) not yet uploaded deleted"
    }
    return text
  }

  static func rhythm(_ state: IndicatorState) -> String? {
    switch state {
    case .category(let category): category.blink.description
    case .noContact: StatusRhythm.noContact.description
    case .measuring: StatusRhythm.measuring.description
    case .error: StatusRhythm.error.description
    case .breathingPacer: StatusRhythm.breathing.description
    case .off: nil
    }
  }

  static func summaryText(_ summary: MonitorSummary) -> String {
    var lines = ["", "Stopped (\(summary.stopReason)) after \(summary.dataSeconds.formatted(decimals: 1)) s of data in "
      + "\(summary.wallSeconds.formatted(decimals: 1)) s."]
    if summary.mode == .kiosk {
      lines.append("Asked the hub \(counted(summary.kioskPolls, "time")).")
    } else {
      var parts = StressCategory.allCases.compactMap { category in
        summary.categories[category].map { "\(category.rawValue) \($0)" }
      }
      let unscored = summary.uncategorised.values.reduce(0, +)
      if unscored > 0 {
        let reasons = WindowQuality.allCases.compactMap { quality in
          summary.uncategorised[quality].map { "\(quality.displayText) \($0)" }
        }
        parts.append("uncategorised \(unscored) (" + reasons.joined(separator: ", ") + ")")
      }
      lines.append("Windows: \(summary.windows)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")) + "; "
        + "\(counted(summary.beats, "beat")), \(counted(summary.gaps, "gap")), "
        + "\(counted(summary.lostSamples, "sample")) lost.")
      if let baseline = summary.baseline {
        lines.append(baseline.isPersonal
          ? "Baseline: personal, HRV \(baseline.hrvMs.formatted(decimals: 1)) ms, resting HR "
            + "\(baseline.restingHeartRateBpm.formatted(decimals: 0)) bpm."
          : "Baseline: default (a personal one needs 30 good windows).")
      }
      if let database = summary.database {
        lines.append("Stored: \(counted(summary.storedMeasurements, "measurement")), "
          + "\(counted(summary.storedIBIs, "beat interval")) in "
          + "\(database). History: stressmon history --db \(database)")
        if summary.droppedForSpace > 0 {
          lines.append("Disk full: deleted \(counted(summary.droppedForSpace, "measurement")) not yet uploaded to "
            + "make room (the oldest first).")
        }
      }
    }
    if let image = summary.panelImage {
      lines.append(
        "Panel: \(image) (\(summary.panelFullRefreshes) full, \(summary.panelPartialRefreshes) partial refreshes)"
        + (summary.panelAsleep == true ? ", asleep." : "."))
    }
    if let released = summary.ledsReleased {
      lines.append(released ? "LEDs: off, lines released." : "LEDs: NOT released.")
    }
    if summary.droppedDisplayUpdates > 0 || summary.droppedEvents > 0 {
      lines.append(
        "Superseded while a display was busy: \(counted(summary.droppedDisplayUpdates, "display update")); "
          + "events dropped: "
          + "\(summary.droppedEvents) (samples and rows are never dropped).")
    }
    return lines.joined(separator: "\n")
  }

  private static func row(_ seconds: Double, _ kind: String, _ text: String) -> String {
    let time = seconds.formatted(decimals: 1)
    return String(repeating: " ", count: max(0, 8 - time.count)) + time + " s  " + kind.padded(8) + " " + text
  }

  // MARK: - JSON lines

  static func jsonLine(_ event: MonitorEvent) -> String {
    JSONText.line { o in jsonFields(event, into: o) }
  }

  private static func jsonFields(_ event: MonitorEvent, into o: JSONText.ObjectWriter) {
    switch event {
    case .started(let info):
      o.string("event", "started")
      o.string("mode", info.mode.rawValue)
      o.string("board", info.board)
      o.bool("simulated", info.simulated)
      o.string("source", info.source)
      o.string("speed", "\(info.speed)")
      o.string("device", info.deviceID)
      o.string("db", info.database)
      o.string("panel_image", info.panelImage)
      o.string("hub", info.hub)
    case .state(let status, let at):
      o.string("event", "state")
      o.time(at)
      o.string("state", status.name)
      o.string("phase", status.phase.name)
      if case .uncategorised(let quality) = status.phase { o.string("reason", quality.rawValue) }
      o.string("category", status.category?.rawValue)
      o.objects("faults", status.faults) { f, fault in
        f.string("kind", fault.name)
        f.string("message", fault.message)
      }
      o.string("led", "\(status.indicatorState)")
      o.integer("baseline_windows", status.baselineProgress?.windows)
      o.integer("baseline_needed", status.baselineProgress?.needed)
      o.integer("unsynced", status.unsynced)
      o.integer("dropped_for_space", status.droppedForSpace)
    case .window(let record, let summary, let at):
      o.string("event", "window")
      o.time(at)
      o.string("id", record.id)
      o.number("start_s", summary.startSeconds)
      o.number("end_s", summary.endSeconds)
      o.number("window_end", record.windowEnd)
      o.string("quality", summary.quality.rawValue)
      o.string("category", summary.stress?.category.rawValue ?? "uncategorised")
      o.number("stress_level", summary.stress?.level)
      o.number("confidence", summary.stress?.confidence)
      o.number("sdnn_ms", summary.metrics?.sdnnMs)
      o.number("rmssd_ms", summary.metrics?.rmssdMs)
      o.number("heart_rate_bpm", summary.metrics?.meanHeartRateBpm)
      o.integer("beats", summary.cleanIntervals)
      o.integer("rejected", summary.rejectedIntervals)
      o.bool("baseline_personal", record.baselinePersonal)
    case .baseline(let baseline, let at):
      o.string("event", "baseline")
      o.time(at)
      o.bool("personal", baseline.isPersonal)
      o.number("hrv_ms", baseline.hrvMs)
      o.number("resting_hr_bpm", baseline.restingHeartRateBpm)
      o.integer("windows", baseline.windowCount)
    case .ledState(let state, let at):
      o.string("event", "led_state")
      o.time(at)
      o.string("state", "\(state)")
    case .leds(let frame):
      o.string("event", "leds")
      o.number("t", frame.seconds)
      o.object("lit") { lit in for light in frame.lit { lit.bool(light.name, light.on) } }
    case .ledsRepeat(let state, let period, let since):
      o.string("event", "leds_repeat")
      o.number("t", since)
      o.string("state", "\(state)")
      o.integer("period_ms", period)
    case .panelRefreshing(let decision, let at):
      o.string("event", "panel_refreshing")
      o.time(at)
      o.string("decision", "\(decision)")
      o.string("mode", decision.modeToken)
      if let reason = decision.reasonToken { o.string("reason", reason) }
    case .panel(let decision, let image, let at):
      o.string("event", "panel")
      o.time(at)
      o.string("decision", "\(decision)")
      o.string("mode", decision.modeToken)
      if let reason = decision.reasonToken { o.string("reason", reason) }
      o.string("image", image)
    case .gap(let samples, let at):
      o.string("event", "gap")
      o.time(at)
      o.integer("samples", samples)
    case .notice(let text, let at):
      o.string("event", "notice")
      o.time(at)
      o.string("message", text)
    case .kiosk(let latest, let at):
      o.string("event", "hub_latest")
      o.time(at)
      o.string("device", latest.deviceId)
      o.number("server_time", latest.serverTime)
      o.string("category", latest.record.map { $0.category?.rawValue ?? "uncategorised" })
      o.number("window_end", latest.record?.windowEnd)
    case .stopped(let summary):
      o.string("event", "stopped")
      o.string("reason", summary.stopReason)
      o.number("data_s", summary.dataSeconds)
      o.number("wall_s", summary.wallSeconds)
      o.integer("samples", Int(summary.samples))
      o.integer("lost_samples", summary.lostSamples)
      o.integer("gaps", summary.gaps)
      o.integer("beats", summary.beats)
      o.integer("windows", summary.windows)
      o.object("categories") { c in
        for category in StressCategory.allCases { c.integer(category.rawValue, summary.categories[category] ?? 0) }
      }
      o.object("uncategorised") { u in
        for quality in WindowQuality.allCases where quality != .good {
          u.integer(quality.rawValue, summary.uncategorised[quality] ?? 0)
        }
      }
      o.bool("baseline_personal", summary.baseline?.isPersonal)
      o.integer("stored_measurements", summary.storedMeasurements)
      o.integer("stored_ibis", summary.storedIBIs)
      o.integer("unwritten_measurements", summary.unwrittenMeasurements)
      o.integer("dropped_for_space", summary.droppedForSpace)
      o.integer("ahead_of_clock", summary.aheadOfClock)
      o.string("db", summary.database)
      o.string("panel_image", summary.panelImage)
      o.integer("panel_full_refreshes", summary.panelFullRefreshes)
      o.integer("panel_partial_refreshes", summary.panelPartialRefreshes)
      o.bool("panel_asleep", summary.panelAsleep)
      o.bool("leds_released", summary.ledsReleased)
      o.integer("dropped_display_updates", summary.droppedDisplayUpdates)
      o.integer("dropped_events", summary.droppedEvents)
      o.integer("kiosk_polls", summary.kioskPolls)
      o.number("emulator_cpu_ms", summary.emulatorCPUMilliseconds)
    }
  }
}

extension JSONText.ObjectWriter {
  /// The event's data time and the process time it was emitted at.
  fileprivate func time(_ at: EventTime) {
    number("t", at.dataSeconds)
    number("process_ms", (at.processMilliseconds * 1000).rounded() / 1000)
  }
}

extension String {
  fileprivate func padded(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
