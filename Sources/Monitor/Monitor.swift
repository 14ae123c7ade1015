import Analysis
import Config
import FoundationEssentials
import Logging
import Platform
import PulseDSP
import Raster
import Sensors
import Store
import StressModel
import Sync
import Synchronization

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
  /// Sync: the most one upload run may take, retries included (then the next run continues the backoff).
  public var syncDeadlineSeconds = SyncConfiguration.defaultDeadline
  /// `stop()` ends the run gracefully (a signal handler calls it).
  public var stop = StopSignal()
  /// systemd's notification socket (READY, WATCHDOG, STOPPING); inactive unless given one
  /// (`ServiceNotifier.fromEnvironment()` under systemd).
  public var service = ServiceNotifier(socketPath: nil)

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
    if !environment.stop.isStopped { environment.service.stopping(status: "stopping (\(reason))") }
    environment.stop.stop(reason: reason)
  }

  /// Runs until stopped, until the duration, or until a replay ends. `events` is called in order from the
  /// monitor's delivery task (never from the sampling loop, so a slow consumer cannot hold up sampling).
  public func run(
    events handler: @escaping @Sendable (MonitorEvent) -> Void
  ) async throws(MonitorError) -> MonitorSummary {
    if let problem = configuration.problem() { throw .usage(problem) }
    let kiosk = configuration.device.mode == .kiosk
    let clocks = try RunClocks(speed: speed, samplingThread: kiosk ? nil : SamplingThread())
    defer { clocks.samplingThread?.shutdown() }
    let events = Mailbox<MonitorEvent>(policy: speed.isPaced ? .dropOldest(4_096) : .backpressure(4_096))
    let emit: @Sendable (MonitorEvent) -> Void = { events.offer($0) }
    let dataClock = DataClock()
    // At `--speed max` the LEDs' virtual clock is moved along with the data: its 0 is data time 0.
    if !speed.isPaced { dataClock.originMilliseconds = 0 }
    let storeClock = environment.storeClock
      ?? SystemStoreClock(assumeSynchronised: configuration.device.assumeClockSynchronised ?? board.simulated)
    // Usage mistakes first (a real sensor at 10×), then the outputs: a missing GPIO chip or SPI node stops the
    // start with its fix before anything else opens.
    let makeSource = kiosk ? nil : try sourceMaker(clocks: clocks)
    let timeBase = TimeBase(speed: speed, clock: storeClock, span: kiosk ? nil : try dataSpan())
    let outputs = try openOutputs(clocks: clocks, dataClock: dataClock, emit: emit)
    let statusBoard = StatusBoard(
      initial: MonitorStatus(phase: .starting, clockSynchronised: storeClock.reading().synchronised),
      outputs: StatusBoard.Outputs(
        leds: outputs.leds?.mailbox, panel: outputs.panel?.mailbox, events: events,
        panelOnKeyChangeOnly: configuration.display.panelOnCategoryChangeOnly,
        localTime: { ClockTime(localTimeOfEpochSeconds: Int64($0.rounded(.down))) }, mqtt: outputs.mqtt?.mailbox),
      clocks: { [dataClock] in
        let data = dataClock.seconds
        return (data, timeBase.wall(streamSeconds: data))
      })
    outputs.panel?.onFault.withLock { $0 = { message in Self.setPanelFault(statusBoard, message) } }
    let run = RunContext(
      clocks: clocks, dataClock: dataClock, timeBase: timeBase, storeClock: storeClock, events: events,
      outputs: outputs, status: statusBoard)

    var summary = MonitorSummary(mode: configuration.device.mode, stopReason: "")
    summary.panelImage = outputs.panel?.imagePath
    let info = startInfo(outputs: outputs)

    var result: Result<Void, MonitorError> = .success(())
    await withTaskGroup(of: Void.self) { group in
      group.addTask { while let event = await events.next() { handler(event) } }
      outputs.startConsumers(in: &group)
      if let makeSource {
        result = await runMeasuring(makeSource: makeSource, run: run, info: info, summary: &summary)
      } else {
        result = await runKiosk(run: run, info: info, summary: &summary)
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

  /// PulseSource → SamplingLoop (analysis) → status board (LEDs, panel, events) and store (→ sync): the README's
  /// picture, wired for one run.
  private func runMeasuring(
    makeSource: @escaping @Sendable () throws(SensorError) -> any PulseSource, run: RunContext,
    info: MonitorStartInfo, summary: inout MonitorSummary
  ) async -> Result<Void, MonitorError> {
    let relay = BaselineRelay()
    let firstResult = StopSignal()
    let syncWanted = !configuration.sync.hub.isEmpty
    // One daemon per database: a second one is refused before it opens anything, naming the first.
    let databaseLock: DatabaseLock?
    do {
      databaseLock = try DatabaseLock.acquire(database: configuration.store.database)
    } catch {
      return .failure(.unavailable(error.description, code: 69))
    }
    defer { withExtendedLifetime(databaseLock) {} }
    let store = StoreStage(
      path: configuration.store.database, clock: run.storeClock, durability: configuration.store.durability,
      flushSeconds: configuration.store.flushSeconds, retention: configuration.retention, reportsOutbox: syncWanted
    ) { report in
      Self.apply(
        report, board: run.status, relay: relay, events: run.events, dataClock: run.dataClock, syncWanted: syncWanted)
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
    run.events.offer(.started(started))
    let sampling = SamplingLoop(
      settings: SamplingLoop.Settings(
        deviceID: configuration.device.id, analyzer: analyzerConfiguration(for: source.info),
        durationSeconds: durationSeconds, speed: speed,
        retry: .init(
          initialSeconds: environment.sensorRetryInitialSeconds,
          maximumSeconds: environment.sensorRetryMaximumSeconds)),
      input: SamplingLoop.Input(source: source, reopen: makeSource, clock: run.clocks.sensor),
      outputs: SamplingLoop.Outputs(
        status: run.status, store: store, events: run.events, timeBase: run.timeBase, dataClock: run.dataClock),
      baseline: SamplingLoop.BaselineFeed(initial: store.currentBaseline(), updates: relay),
      supervision: SamplingLoop.Supervision(
        service: environment.service, onFirstWindow: { firstResult.stop() },
        readyStatus: "measuring: \(configuration.device.mode.rawValue) mode, \(source.info.kind) at "
          + "\(source.info.sampleRateHz.formatted(decimals: 0)) samples/s"))
    store.start()
    run.status.publishCurrent()
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
        let clock = run.clocks.indicator
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
      // Sampling, on its own thread, raced against the stop request: whichever ends first cancels the other.
      let thread = run.clocks.samplingThread
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
      trimDone.stop()
      Self.noteBusyPanel(run.outputs, events: run.events, dataClock: run.dataClock)
      await sampling.source.stop()
      // Nothing measured is lost: every handed-over row is written before the outputs stop.
      if store.isWriting {
        run.events.offer(.notice(
          "stopping: waiting for the store write in progress", at: EventTime(dataSeconds: run.dataClock.seconds)))
      }
      // The upload is cancelled first (its rows stay pending; it never waits for the hub), so that no outbox call
      // comes after the store is closed.
      sync?.requestStop()
      let health = await store.close()
      await sync?.stop()
      summary.record(sampling.snapshot, store: health, droppedRecords: store.droppedRecords, stop: stop)
      summary.wallSeconds = run.clocks.elapsedWallSeconds
    }
    if let failure { return .failure(failure) }
    return .success(())
  }

  /// How long after the first result start-up memory is released (the LEDs and the panel have shown it by then).
  static let releaseStartupMemoryDelayMilliseconds: Int64 = 15_000
}
