import Config
import Indicators
import LinuxIO
import Platform
import Sensors
import Store
import Sync
import Logging
import Synchronization

/// The clocks of one run. Paced runs share one `PacedClock` (sensor pacing, LED blinking, panel BUSY timing); the
/// sensor's sleeps run on the sampling thread's own timer when there is one. `--speed max` has virtual clocks
/// moved by the data: the sensor's, the LEDs' (moved along with the data time) and the panel's (its BUSY waits
/// jump ahead on their own, so it must not share the LEDs' clock).
struct RunClocks: Sendable {
  let sensor: any SensorClock
  let indicator: any IndicatorClock
  let panel: any IndicatorClock
  let virtualIndicator: VirtualIndicatorClock?
  /// The sampling loop's thread (measuring runs), whose timer paces the sensor.
  let samplingThread: SamplingThread?
  private let startedNanoseconds = PacedClock.monotonicNanoseconds()

  init(speed: RunSpeed, samplingThread: SamplingThread?) throws(MonitorError) {
    self.samplingThread = samplingThread
    switch speed {
    case .realtime, .times:
      let factor: Double
      if case .times(let n) = speed { factor = n } else { factor = 1 }
      let paced = PacedClock(factor: factor)
      if let samplingThread {
        sensor = SamplingThreadClock(paced: paced, thread: samplingThread)
      } else {
        sensor = paced
      }
      indicator = paced
      panel = paced
      virtualIndicator = nil
    case .max:
      let leds = VirtualIndicatorClock()
      sensor = VirtualClock()
      indicator = leds
      panel = VirtualIndicatorClock()
      virtualIndicator = leds
    }
  }

  var elapsedWallSeconds: Double {
    Double(PacedClock.monotonicNanoseconds() - startedNanoseconds) / 1e9
  }
}

/// The LEDs and the panel once opened (and Home Assistant over MQTT when configured), and their tasks.
struct OpenOutputs: Sendable {
  var leds: LEDStage?
  var panel: PanelStage?
  var mqtt: MQTTStage?
  let paced: Bool
  let simulated: Bool
  /// Set when each consumer has drained its mailbox.
  private let ledsDone = StopSignal()
  private let panelDone = StopSignal()
  private let mqttDone = StopSignal()
  /// Ends the LED scheduler and timeline printer.
  private let background = StopSignal()
  private let busyPanelNoted = StopSignal()

  init(leds: LEDStage?, panel: PanelStage?, paced: Bool, simulated: Bool) {
    self.leds = leds
    self.panel = panel
    self.paced = paced
    self.simulated = simulated
  }

  func startConsumers(in group: inout TaskGroup<Void>) {
    let background = background
    if let leds {
      let done = ledsDone
      group.addTask {
        await leds.consume()
        done.stop()
      }
      if paced {
        group.addTask { await runUntil(background) { await leds.runScheduler() } }
      }
    } else {
      ledsDone.stop()
    }
    if let panel {
      let done = panelDone
      group.addTask {
        await panel.consume()
        done.stop()
      }
    } else {
      panelDone.stop()
    }
    if let mqtt {
      let done = mqttDone
      group.addTask {
        await mqtt.consume()
        done.stop()
      }
      group.addTask { await mqtt.run() }
    } else {
      mqttDone.stop()
    }
  }

  /// No more updates: waits until the LEDs show the last state and a panel refresh in progress has completed.
  func finishConsumers() async {
    leds?.mailbox.finish()
    panel?.mailbox.finish()
    mqtt?.mailbox.finish()
    await ledsDone.wait()
    await panelDone.wait()
    await mqttDone.wait()
    await mqtt?.close()
  }

  /// True the first time only (the "waiting for the panel" notice is given once).
  func notedBusyPanel() -> Bool {
    guard !busyPanelNoted.isStopped else { return false }
    busyPanelNoted.stop()
    return true
  }

  func stopBackground() {
    background.stop()
  }
}

/// Runs `body` until it returns or `signal` is given (then cancels it).
func runUntil(_ signal: StopSignal, _ body: @escaping @Sendable () async -> Void) async {
  await withTaskGroup(of: Void.self) { group in
    group.addTask { await body() }
    group.addTask { await signal.wait() }
    await group.next()
    group.cancelAll()
  }
}

extension Monitor {
  /// Opens the board's LEDs and panel (simulated ones on a simulated board). A missing GPIO chip or SPI node
  /// fails here with the fix (exit 69), unless `[display] leds`/`panel` turn them off.
  func openOutputs(
    clocks: RunClocks, dataClock: DataClock, emit: @escaping @Sendable (MonitorEvent) -> Void
  ) throws(MonitorError) -> OpenOutputs {
    // MQTT first: its settings and files are checked before any line or SPI node is opened. No connection yet.
    var mqtt: MQTTStage?
    if !configuration.mqtt.broker.isEmpty && configuration.device.mode != .kiosk {
      mqtt = try MQTTStage(
        settings: configuration.mqtt, deviceID: configuration.device.id, model: "stressmon on \(board.name)")
    } else if !configuration.mqtt.broker.isEmpty {
      Logger(label: "stressmon.monitor.mqtt").warning(
        "[mqtt] is ignored in kiosk mode: the measuring device publishes its own state")
    }
    var leds: LEDStage?
    let breathingPacer = configuration.display.breathingPacer
    if configuration.display.leds, let wiring = BoardOutputs.ledWiring(board, breathingPacer: breathingPacer) {
      do {
        let indicator: LEDIndicator
        var chip: SimulatedGPIOChip?
        if board.simulated {
          let simulated = try LEDIndicator.simulated(wiring: wiring, clock: clocks.indicator)
          indicator = simulated.0
          chip = simulated.1
        } else {
          indicator = try LEDIndicator.open(wiring: wiring, clock: clocks.indicator)
        }
        leds = LEDStage(
          indicator: indicator, wiring: wiring, clock: clocks.indicator, virtualClock: clocks.virtualIndicator,
          chip: chip,
          policy: speed.isPaced ? .coalesce : .backpressure(64), dataClock: dataClock, emit: emit)
      } catch {
        throw .unavailable(
          "LEDs (board \(board.name)): \(error); check [gpio] and [leds] in \(board.path), "
            + "or set [display] leds = false",
          code: 69)
      }
    }
    var panel: PanelStage?
    if configuration.display.panel, let model = BoardOutputs.panelModel(board) {
      let policy = RefreshPolicy(minimumIntervalSeconds: Int64(configuration.display.panelMinimumRefreshSeconds))
      let statePath = configuration.panelStatePath
      if board.simulated {
        let image = board.epaper.output ?? "stressmon-panel.png"
        try Self.checkWritable(image)
        // The emulated panel starts blank on every run: a state file from an earlier run would describe glass that
        // no longer exists (its first partial refresh would ghost).
        unlink(statePath)
        let (display, emulator) = EPaperDisplay.simulated(
          model: model, statePath: statePath, clock: clocks.panel, policy: policy,
          powerSwitched: board.epaper.pwr != nil)
        panel = PanelStage(
          display: display, model: model, refreshPolicy: policy, emulator: emulator, imagePath: image,
          mailbox: speed.isPaced ? .coalesce : .backpressure(64),
          emit: emit)
      } else if let pins = BoardOutputs.panelPins(board) {
        do {
          let driver = try EPaperDriver.open(model: model, pins: pins, clock: clocks.panel)
          panel = PanelStage(
            display: EPaperDisplay(driver: driver, statePath: statePath, policy: policy), model: model,
            refreshPolicy: policy, emulator: nil, imagePath: nil, mailbox: .coalesce, emit: emit)
        } catch {
          if let leds { Task { await leds.indicator.shutdown() } }
          throw .unavailable(
            "e-paper panel (board \(board.name)): \(error); check [epaper] in \(board.path), "
              + "or set [display] panel = false",
            code: 69)
        }
      }
    }
    var outputs = OpenOutputs(leds: leds, panel: panel, paced: speed.isPaced, simulated: board.simulated)
    outputs.mqtt = mqtt
    return outputs
  }

  /// The panel image's directory must exist and be writable (checked at start, not at the first refresh).
  static func checkWritable(_ path: String) throws(MonitorError) {
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    guard access(directory.isEmpty ? "/" : directory, W_OK) == 0 else {
      throw .cannotCreate("cannot write the panel image \(path): directory '\(directory)' is missing or not writable; "
        + "create it or run from a writable directory")
    }
  }
}

/// The background sync of a measuring run: `SyncClient.run()` over the store's outbox. The HTTP client (and its
/// NIO threads) exists only when a hub is configured.
final class SyncRunner: Sendable {
  private let transport: AsyncHTTPTransport
  private let client: SyncClient
  private let stopSignal = StopSignal()

  init(configuration: MonitorConfiguration.SyncSettings, environment: MonitorEnvironment, writer: StoreWriter)
    throws(MonitorError)
  {
    let token: String
    do {
      token = try Self.readToken(configuration.tokenFile)
    }
    let settings = SyncConfiguration(
      hubURL: configuration.hub, token: token, caFile: configuration.caFile.isEmpty ? nil : configuration.caFile,
      allowInsecureHTTP: configuration.insecureHTTP, connectTimeout: environment.syncConnectTimeoutSeconds,
      requestTimeout: environment.syncRequestTimeoutSeconds, deadline: environment.syncDeadlineSeconds,
      interval: configuration.intervalSeconds)
    do {
      transport = try AsyncHTTPTransport(configuration: settings)
      client = try SyncClient(outbox: WriterOutbox(writer: writer), transport: transport, configuration: settings)
    } catch {
      throw .usage("[sync]: \(error)")
    }
  }

  func run() async {
    let client = client
    await runUntil(stopSignal) { await client.run() }
  }

  /// Asks the background loop to end (an upload in flight is cancelled; its rows stay pending) without waiting.
  func requestStop() {
    stopSignal.stop()
  }

  /// Ends the background loop and closes the connections.
  func stop() async {
    stopSignal.stop()
    try? await transport.shutdown()
  }

  /// The token in `path`, its permissions checked (`TokenFile`); `section` names the config section for errors.
  static func readToken(_ path: String, section: String = "sync") throws(MonitorError) -> String {
    do {
      let contents = try TokenFile.read(path)
      if let warning = contents.warning {
        Logger(label: "stressmon.monitor").warning("token file readable by its group", metadata: ["problem": "\(warning)"])
      }
      return contents.token
    } catch {
      let advice = error.sysexitsCode == 66 ? " (or leave [\(section)] hub empty)" : ""
      throw .badFile("[\(section)] token_file: \(error.description)\(advice)", code: error.sysexitsCode)
    }
  }
}
