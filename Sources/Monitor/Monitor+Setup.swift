import Analysis
import PulseDSP
import Sensors
import Store
import StressModel

extension Monitor {
  // MARK: - Set-up

  /// The factory call for the configured source, with the run's pacing and clock.
  func sourceMaker(
    clocks: RunClocks
  ) throws(MonitorError) -> @Sendable () throws(SensorError) -> any PulseSource {
    let spec: PulseSourceSpec
    do { spec = try PulseSourceSpec(parsing: configuration.measurement.source) } catch {
      throw .usage(error.description)
    }
    let simulatedSource = spec != .board || board.sensor.part == .emulated
    if !simulatedSource && speed != .realtime {
      throw .usage("--speed \(speed) needs a simulated board (--board sim) or a recording (--source replay:FILE): "
        + "a real sensor delivers in real time")
    }
    let endless = spec == .synthetic || (spec == .board && board.sensor.part == .emulated)
    if speed == .max && durationSeconds == nil && endless {
      throw .usage("--speed max with an endless source (the simulated sensor loops its recording) needs --duration S")
    }
    // A wearable on a battery reads the sensor's FIFO as seldom as its depth allows.
    let options = PulseSourceOptions(
      pacing: speed == .max ? .asFastAsPossible : .realtime, clock: clocks.sensor,
      polling: configuration.device.mode == .wearable ? .sparse : .prompt)
    let board = self.board
    if let custom = environment.makeSource {
      return { () throws(SensorError) -> any PulseSource in try custom(options) }
    }
    return { () throws(SensorError) -> any PulseSource in
      try PulseSourceFactory.make(spec, board: board, options: options)
    }
  }

  /// The data seconds a run faster than real time will cover (`TimeBase` places them so they end now): the smaller
  /// of `--duration` and a replay's length (read from the file); nil for real time and for an endless source
  /// without `--duration`.
  func dataSpan() throws(MonitorError) -> Double? {
    guard speed != .realtime else { return nil }
    guard case .replay(let path) = try? PulseSourceSpec(parsing: configuration.measurement.source),
      environment.makeSource == nil
    else { return durationSeconds }
    let length: Double
    do { length = try ReplayPulseSource.dataSeconds(path: path) } catch {
      throw .unavailable(error.description, code: error.sysexitCode)
    }
    return min(durationSeconds ?? length, length)
  }

  /// The detector set up for the source: the same defaults as `analyze` for recordings (so a replay stores
  /// exactly what `analyze` reports); for a sensor with a known scale, its rails and its "no finger" level (5 %
  /// of full scale, the level below which the LED current control also reports no finger).
  func analyzerConfiguration(for info: PulseSourceInfo) -> PulseAnalyzer.Configuration {
    var detector = BeatDetectorConfiguration(sampleRateHz: info.sampleRateHz, polarity: info.polarity)
    if let fullScale = info.fullScale {
      detector.rails = .range(low: 0, high: fullScale)
      detector.noContactBelow = Int32(Double(fullScale) * LEDCurrentController.noFingerFraction)
    }
    return PulseAnalyzer.Configuration(
      detector: detector,
      windows: HRVWindowConfiguration(
        lengthSeconds: configuration.measurement.windowSeconds, stepSeconds: configuration.measurement.stepSeconds))
  }

  func startInfo(outputs: OpenOutputs) -> MonitorStartInfo {
    let kiosk = configuration.device.mode == .kiosk
    return MonitorStartInfo(
      mode: configuration.device.mode, board: board.name, boardPath: board.path, simulated: board.simulated,
      source: kiosk
        ? "hub \(configuration.kiosk.hub), device \(configuration.kiosk.device)" : configuration.measurement.source,
      sampleRateHz: nil, speed: speed, deviceID: kiosk ? configuration.kiosk.device : configuration.device.id,
      database: kiosk ? nil : configuration.store.database, panelImage: outputs.panel?.imagePath,
      leds: outputs.leds.map { stage in
        let lines = stage.wiring.lines.map { "\($0)".filter { $0 != "'" } }
        return "\(board.leds.wiring.rawValue) on " + lines.joined(separator: ", ")
      }, panel: outputs.panel.map { $0.model.name },
      hub: kiosk ? configuration.kiosk.hub : (configuration.sync.hub.isEmpty ? nil : configuration.sync.hub))
  }

  // MARK: - Store reports

  static func apply(
    _ report: StoreStage.Report, board: StatusBoard, relay: BaselineRelay, events: Mailbox<MonitorEvent>,
    dataClock: DataClock, syncWanted: Bool
  ) {
    if let baseline = report.baseline, relay.offer(baseline) {
      events.offer(.baseline(baseline, at: EventTime(dataSeconds: dataClock.seconds)))
    }
    board.update { status in
      status.faults.removeAll { $0.name == "store" }
      if let message = report.health.errorMessage { status.faults.append(.store(message)) }
      if report.health.droppedForSpace > 0 { status.droppedForSpace = report.health.droppedForSpace }
      if let baseline = report.baseline, !baseline.isPersonal, let learning = report.learning {
        // The sampling loop counts good windows as they come; the store counts them once committed, so it may
        // be behind: never go backwards.
        let counted = status.baselineProgress?.windows ?? 0
        status.baselineProgress = (max(counted, learning.windows), learning.needed)
      }
      // A personal baseline clears the progress with the first window scored against it (the sampling loop).
      if syncWanted, let outbox = report.outbox {
        // "Offline" once rows wait longer than a few sync intervals (a short backlog is normal between runs).
        status.unsynced = outbox.pending > 0 ? outbox.pending : nil
      }
    }
  }

  /// A stop while the panel refreshes waits for the refresh: say so (once).
  static func noteBusyPanel(_ outputs: OpenOutputs, events: Mailbox<MonitorEvent>, dataClock: DataClock) {
    guard outputs.panel?.isRefreshing == true, outputs.notedBusyPanel() else { return }
    events.offer(.notice(
      "stopping: waiting for the panel refresh in progress (it ends with the panel asleep or switched off)",
      at: EventTime(dataSeconds: dataClock.seconds)))
  }

  static func setPanelFault(_ board: StatusBoard, _ message: String?) {
    board.update { status in
      status.faults.removeAll { $0.name == "panel" }
      if let message { status.faults.append(.panel(message)) }
    }
  }
}
