import Analysis
import Config
import FoundationEssentials
import Indicators
import Logging
import PulseDSP
import Sensors
import Store
import StressModel
import Sync
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What tests and special set-ups inject instead of the real thing.
public struct MonitorEnvironment: Sendable {
  /// The clocks rows are stamped with (default: `SystemStoreClock`, trusting the wall clock per the config).
  public var storeClock: (any StoreClock)?
  /// Builds the pulse source, and rebuilds it after the sensor was lost (default: `PulseSourceFactory` from the
  /// config's source and the board).
  public var makeSource: (@Sendable (PulseSourceOptions) throws(SensorError) -> any PulseSource)?
  /// First wait before reopening a lost sensor, and the longest.
  public var sensorRetryInitialSeconds = 1.0
  public var sensorRetryMaximumSeconds = 60.0
  /// Kiosk: seconds a question to the hub may take.
  public var kioskTimeoutSeconds = 10.0
  /// Sync: connect timeout and request timeout, seconds.
  public var syncConnectTimeoutSeconds = 10.0
  public var syncRequestTimeoutSeconds = 30.0
  /// `stop()` ends the run gracefully (a signal handler calls it).
  public var stop = StopSignal()

  public init() {}
}

/// The daemon: one pipeline from the pulse source to the LEDs, the panel, the store and the hub (or, in kiosk
/// mode, from the hub to the LEDs and the panel). See docs/daemon.md for the stages, the states and the
/// shutdown order.
public final class Monitor: Sendable {
  // MARK: - Properties

  public let configuration: MonitorConfiguration
  public let board: Board
  public let speed: RunSpeed
  /// Data seconds to run (nil: until stopped, or the end of a replay).
  public let durationSeconds: Double?
  public let environment: MonitorEnvironment
  private let logger = Logger(label: "stressmon.monitor")

  // MARK: - Initialization

  public init(
    configuration: MonitorConfiguration, board: Board, speed: RunSpeed = .realtime, durationSeconds: Double? = nil,
    environment: MonitorEnvironment = MonitorEnvironment()
  ) {
    self.configuration = configuration
    self.board = board
    self.speed = speed
    self.durationSeconds = durationSeconds
    self.environment = environment
  }

  // MARK: - Public

  /// Ends the run gracefully: sampling stops, the store is flushed, the panel finishes its refresh and sleeps,
  /// the LEDs go dark and the lines are released; `run` then returns its summary.
  public func stop(reason: String = "stop requested") {
    environment.stop.stop(reason: reason)
  }

  /// Runs until stopped, until the duration, or until a replay ends. `events` is called in order from the
  /// monitor's delivery task (never from the sampling loop, so a slow consumer cannot hold up sampling).
  public func run(
    events handler: @escaping @Sendable (MonitorEvent) -> Void
  ) async throws(MonitorError) -> MonitorSummary {
    if let problem = configuration.problem() { throw .usage(problem) }
    let clocks = try RunClocks(speed: speed)
    let events = Mailbox<MonitorEvent>(policy: speed.isPaced ? .dropOldest(4_096) : .backpressure(4_096))
    let emit: @Sendable (MonitorEvent) -> Void = { events.offer($0) }
    let dataClock = DataClock()
    // At `--speed max` the LEDs' virtual clock is moved along with the data: its 0 is data time 0.
    if !speed.isPaced { dataClock.originMilliseconds = 0 }
    let storeClock = environment.storeClock
      ?? SystemStoreClock(assumeSynchronised: configuration.device.assumeClockSynchronised ?? board.simulated)
    let timeBase = TimeBase(speed: speed, clock: storeClock)

    // Usage mistakes first (a real sensor at 10×), then the outputs: a missing GPIO chip or SPI node stops the
    // start with its fix before anything else opens.
    let makeSource = configuration.device.mode == .kiosk ? nil : try sourceMaker(clocks: clocks)
    let outputs = try openOutputs(clocks: clocks, dataClock: dataClock, emit: emit)
    let board = StatusBoard(
      initial: MonitorStatus(phase: .starting, clockSynchronised: storeClock.reading().synchronised),
      outputs: StatusBoard.Outputs(
        leds: outputs.leds?.mailbox, panel: outputs.panel?.mailbox, events: events,
        panelOnKeyChangeOnly: configuration.display.panelOnCategoryChangeOnly,
        localTime: { ClockTime(localTimeOfEpochSeconds: Int64($0.rounded(.down))) }),
      clocks: { [dataClock] in
        let data = dataClock.seconds
        return (data, timeBase.wall(streamSeconds: data))
      })
    outputs.panel?.onFault.withLock { $0 = { message in Self.setPanelFault(board, message) } }

    var summary = MonitorSummary(mode: configuration.device.mode, stopReason: "")
    summary.panelImage = outputs.panel?.imagePath
    let info = startInfo(outputs: outputs)

    var result: Result<Void, MonitorError> = .success(())
    await withTaskGroup(of: Void.self) { group in
      group.addTask { while let event = await events.next() { handler(event) } }
      outputs.startConsumers(in: &group)
      if configuration.device.mode == .kiosk {
        result = await runKiosk(
          board: board, clocks: clocks, dataClock: dataClock, events: events, info: info, summary: &summary)
      } else {
        result = await runMeasuring(
          makeSource: makeSource!, outputs: outputs, board: board, clocks: clocks, dataClock: dataClock,
          timeBase: timeBase,
          storeClock: storeClock, events: events, info: info, summary: &summary)
      }
      // Outputs: the panel finishes a refresh in progress (it then sleeps, as after every refresh), the LEDs go
      // dark and release their lines.
      let endMilliseconds = Int64((dataClock.seconds * 1000).rounded())
      Self.noteBusyPanel(outputs, events: events, dataClock: dataClock)
      await outputs.finishConsumers()
      if let leds = outputs.leds { summary.ledsReleased = await leds.shutdown(atMilliseconds: endMilliseconds) }
      if let panel = outputs.panel {
        await panel.close()
        let counts = panel.refreshCounts
        summary.panelFullRefreshes = counts.full
        summary.panelPartialRefreshes = counts.partial
        summary.panelAsleep = panel.isAsleep
      }
      outputs.stopBackground()
      summary.droppedDisplayUpdates = (outputs.leds?.mailbox.dropped ?? 0) + (outputs.panel?.mailbox.dropped ?? 0)
      summary.droppedEvents = events.dropped
      if summary.stopReason.isEmpty {
        summary.stopReason = environment.stop.isStopped ? environment.stop.reason : "ended"
      }
      // A run that could not start ends with its error alone, not a summary of nothing.
      if case .success = result { events.offer(.stopped(summary)) }
      events.finish()
    }
    if case .failure(let error) = result { throw error }
    return summary
  }

  // MARK: - Measuring (desk, wearable)

  private func runMeasuring(
    makeSource: @escaping @Sendable () throws(SensorError) -> any PulseSource, outputs: OpenOutputs,
    board: StatusBoard, clocks: RunClocks,
    dataClock: DataClock, timeBase: TimeBase,
    storeClock: any StoreClock, events: Mailbox<MonitorEvent>, info: MonitorStartInfo, summary: inout MonitorSummary
  ) async -> Result<Void, MonitorError> {
    let relay = BaselineRelay()
    let firstResult = StopSignal()
    let syncWanted = !configuration.sync.hub.isEmpty
    let store = StoreStage(
      path: configuration.store.database, clock: storeClock, durability: configuration.store.durability,
      flushSeconds: configuration.store.flushSeconds, retention: configuration.retention, reportsOutbox: syncWanted
    ) { report in
      Self.apply(report, board: board, relay: relay, events: events, dataClock: dataClock, syncWanted: syncWanted)
    }
    summary.database = configuration.store.database
    let source: any PulseSource
    do {
      source = try makeSource()
      try await source.start()
    } catch {
      _ = await store.close()
      return .failure(.unavailable(error.description, code: error.sysexitCode))
    }
    var sync: SyncRunner?
    if syncWanted {
      do {
        sync = try SyncRunner(configuration: configuration.sync, environment: environment, writer: store.writer)
      } catch {
        await source.stop()
        _ = await store.close()
        return .failure(error)
      }
    }
    var started = info
    started.source = source.info.settings
    started.sampleRateHz = source.info.sampleRateHz
    events.offer(.started(started))
    let baseline = store.currentBaseline()
    let sampling = SamplingLoop(
      settings: SamplingLoop.Settings(
        deviceID: configuration.device.id, analyzer: analyzerConfiguration(for: source.info),
        durationSeconds: durationSeconds, speed: speed,
        retry: .init(
          initialSeconds: environment.sensorRetryInitialSeconds,
          maximumSeconds: environment.sensorRetryMaximumSeconds)),
      source: source, reopen: makeSource, sleepClock: clocks.sensor, timeBase: timeBase, store: store, board: board,
      events: events, baseline: baseline, relay: relay, dataClock: dataClock, onFirstWindow: { firstResult.stop() })
    store.start()
    board.publishCurrent()
    logger.info("measuring", metadata: [
      "source": "\(source.info.settings)", "rate_hz": "\(source.info.sampleRateHz)",
      "db": "\(configuration.store.database)",
      "mode": "\(configuration.device.mode.rawValue)", "speed": "\(speed)"])

    let stop = environment.stop
    var failure: MonitorError?
    let trimDone = StopSignal()
    await withTaskGroup(of: Void.self) { group in
      if let sync { group.addTask { await sync.run() } }
      if speed.isPaced && configuration.device.releaseStartupMemory {
        let clock = clocks.indicator
        let logger = logger
        group.addTask {
          await runUntil(trimDone) {
            await firstResult.wait()
            // After the first result's LED change and panel refresh: those paths run every step from then on.
            do { try await clock.sleep(milliseconds: Self.releaseStartupMemoryDelayMilliseconds) } catch { return }
            StartupMemory.release(logger: logger)
          }
        }
      }
      // Sampling, raced against the stop request: whichever ends first cancels the other.
      let thread = SamplingThread()
      failure = await withTaskGroup(of: MonitorError?.self) { race in
        race.addTask(executorPreference: thread) {
          do throws(MonitorError) { try await sampling.run() } catch { return error }
          return nil
        }
        race.addTask {
          await stop.wait()
          return nil
        }
        var failure: MonitorError?
        if let first = await race.next(), let first { failure = first }
        race.cancelAll()
        for await outcome in race { if let outcome { failure = outcome } }
        return failure
      }
      thread.shutdown()
      trimDone.stop()
      Self.noteBusyPanel(outputs, events: events, dataClock: dataClock)
      await sampling.source.stop()
      // Nothing measured is lost: every handed-over row is written before the outputs stop.
      if store.isWriting {
        events.offer(.notice(
          "stopping: waiting for the store write in progress", at: EventTime(dataSeconds: dataClock.seconds)))
      }
      let health = await store.close()
      await sync?.stop()
      let progress = sampling.snapshot
      summary.dataSeconds = progress.streamSeconds
      summary.samples = progress.samples
      summary.lostSamples = progress.lostSamples
      summary.gaps = progress.gaps
      summary.beats = progress.beats
      summary.windows = progress.windows
      summary.categories = progress.categories
      summary.uncategorised = progress.uncategorised
      summary.baseline = progress.baseline
      summary.storedMeasurements = health.committedMeasurements
      summary.storedIBIs = health.committedIBIs
      summary.unwrittenMeasurements = health.bufferedMeasurements + store.droppedRecords
      summary.stopReason = progress.sourceEnded ? "end of recording"
        : progress.durationReached ? "duration reached" : stop.isStopped ? stop.reason : "ended"
      summary.wallSeconds = clocks.elapsedWallSeconds
    }
    if let failure { return .failure(failure) }
    return .success(())
  }

  /// How long after the first result start-up memory is released (the LEDs and the panel have shown it by then).
  static let releaseStartupMemoryDelayMilliseconds: Int64 = 15_000

  // MARK: - Kiosk

  private func runKiosk(
    board: StatusBoard, clocks: RunClocks, dataClock: DataClock, events: Mailbox<MonitorEvent>,
    info: MonitorStartInfo, summary: inout MonitorSummary
  ) async -> Result<Void, MonitorError> {
    events.offer(.started(info))
    let transport: AsyncHTTPTransport
    do {
      transport = try AsyncHTTPTransport(configuration: SyncConfiguration(
        // The latest-measurement endpoint needs no token; the transport's checks want one, so it gets a
        // placeholder that is never sent.
        hubURL: configuration.kiosk.hub, token: "unused",
        caFile: configuration.sync.caFile.isEmpty ? nil : configuration.sync.caFile,
        allowInsecureHTTP: configuration.sync.insecureHTTP, connectTimeout: environment.kioskTimeoutSeconds))
    } catch {
      return .failure(.usage("[kiosk] hub: \(error)"))
    }
    let indicatorClock = clocks.indicator
    let kiosk = KioskLoop(
      transport: transport, device: configuration.kiosk.device, pollSeconds: configuration.kiosk.pollSeconds,
      staleAfterSeconds: configuration.kiosk.staleAfterSeconds, timeoutSeconds: environment.kioskTimeoutSeconds,
      board: board, events: events,
      dataSeconds: { [dataClock] in
        let seconds = Double(indicatorClock.nowMilliseconds()) / 1000
        dataClock.seconds = seconds
        return seconds
      },
      sleep: { seconds in try await indicatorClock.sleep(milliseconds: Int64(seconds * 1000)) })
    board.publishCurrent()
    let stop = environment.stop
    let duration = durationSeconds
    let polls = await withTaskGroup(of: Int.self) { race in
      race.addTask { await kiosk.run(until: duration) }
      race.addTask {
        await stop.wait()
        return -1
      }
      var polls = 0
      if let first = await race.next(), first >= 0 { polls = first }
      race.cancelAll()
      for await count in race where count >= 0 { polls = count }
      return polls
    }
    try? await transport.shutdown()
    summary.kioskPolls = polls
    summary.dataSeconds = dataClock.seconds
    summary.wallSeconds = clocks.elapsedWallSeconds
    summary.stopReason = stop.isStopped ? stop.reason : "duration reached"
    return .success(())
  }

  // MARK: - Set-up

  /// The factory call for the configured source, with the run's pacing and clock.
  private func sourceMaker(
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
    let options = PulseSourceOptions(pacing: speed == .max ? .asFastAsPossible : .realtime, clock: clocks.sensor)
    let board = self.board
    if let custom = environment.makeSource {
      return { () throws(SensorError) -> any PulseSource in try custom(options) }
    }
    return { () throws(SensorError) -> any PulseSource in
      try PulseSourceFactory.make(spec, board: board, options: options)
    }
  }

  /// The detector set up for the source: the same defaults as `analyze` for recordings (so a replay stores
  /// exactly what `analyze` reports); for a sensor with a known scale, its rails and its "no finger" level (5 %
  /// of full scale, the level below which the LED current control also reports no finger).
  private func analyzerConfiguration(for info: PulseSourceInfo) -> PulseAnalyzer.Configuration {
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

  private func startInfo(outputs: OpenOutputs) -> MonitorStartInfo {
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

  private static func apply(
    _ report: StoreStage.Report, board: StatusBoard, relay: BaselineRelay, events: Mailbox<MonitorEvent>,
    dataClock: DataClock, syncWanted: Bool
  ) {
    if let baseline = report.baseline, relay.offer(baseline) {
      events.offer(.baseline(baseline, at: EventTime(dataSeconds: dataClock.seconds)))
    }
    board.update { status in
      status.faults.removeAll { $0.name == "store" }
      if let message = report.health.errorMessage { status.faults.append(.store(message)) }
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
  private static func noteBusyPanel(_ outputs: OpenOutputs, events: Mailbox<MonitorEvent>, dataClock: DataClock) {
    guard outputs.panel?.isRefreshing == true, outputs.notedBusyPanel() else { return }
    events.offer(.notice(
      "stopping: waiting for the panel refresh in progress (it ends with the panel asleep)",
      at: EventTime(dataSeconds: dataClock.seconds)))
  }

  static func setPanelFault(_ board: StatusBoard, _ message: String?) {
    board.update { status in
      status.faults.removeAll { $0.name == "panel" }
      if let message { status.faults.append(.panel(message)) }
    }
  }
}

/// A new baseline handed from the store queue to the sampling loop (applied at its next block).
final class BaselineRelay: Sendable {
  private let state = Mutex<(pending: PersonalBaseline?, last: PersonalBaseline?)>((nil, nil))

  /// Queues `baseline` if it differs from the last one; true when it did.
  func offer(_ baseline: PersonalBaseline) -> Bool {
    state.withLock { state in
      guard state.last != baseline else { return false }
      state.last = baseline
      state.pending = baseline
      return true
    }
  }

  func take() -> PersonalBaseline? {
    state.withLock { state in
      defer { state.pending = nil }
      return state.pending
    }
  }
}

/// The stream's "now" in data seconds, written by the sampling loop (or the kiosk's clock), read by the rest;
/// and, on paced runs, where data time 0 sits on the LEDs' clock (so LED events are on the data's timeline).
final class DataClock: Sendable {
  private let value = Mutex<(seconds: Double, origin: Int64?)>((0, nil))

  var seconds: Double {
    get { value.withLock { $0.seconds } }
    set { value.withLock { $0.seconds = newValue } }
  }

  var hasOrigin: Bool { value.withLock { $0.origin != nil } }

  /// Clock milliseconds at data time 0 (0 until known).
  var originMilliseconds: Int64 {
    get { value.withLock { $0.origin ?? 0 } }
    set { value.withLock { $0.origin = newValue } }
  }

  /// Data seconds of an instant on the LEDs' clock (0 before the data starts).
  func dataSeconds(clockMilliseconds: Int64) -> Double {
    guard let origin = value.withLock({ $0.origin }) else { return 0 }
    return max(0, Double(clockMilliseconds - origin) / 1000)
  }
}
