import Analysis
import Logging
import PulseDSP
import Sensors
import Store
import StressModel
import Synchronization
import SyncWire

/// The sampling task: source → `PulseAnalyzer`, block by block, and each result handed to the store and the
/// status board without waiting for them (on paced runs). It owns the analyzer; everything it learns goes out
/// through hand-overs. A lost sensor is reopened with backoff, the outage becoming a gap.
final class SamplingLoop: Sendable {
  struct Settings: Sendable {
    var deviceID: String
    var analyzer: PulseAnalyzer.Configuration
    /// Stop after this many data seconds (nil: until stopped or the source ends).
    var durationSeconds: Double?
    var speed: RunSpeed
    var retry: SensorRetry
  }

  /// Reopening a lost sensor: 1 s, doubling, at most 60 s between attempts.
  struct SensorRetry: Sendable {
    var initialSeconds = 1.0
    var maximumSeconds = 60.0
  }

  /// What the loop has done so far (read by the monitor after it ends, and for the summary).
  struct Progress: Sendable {
    var streamSeconds = 0.0
    var samples: Int64 = 0
    var lostSamples = 0
    var gaps = 0
    var beats = 0
    var windows = 0
    var categories: [StressCategory: Int] = [:]
    var uncategorised: [WindowQuality: Int] = [:]
    var sourceEnded = false
    var durationReached = false
    var baseline = PersonalBaseline.default
  }

  private let settings: Settings
  private let rateHz: Double
  private let polarity: PulsePolarity
  private let initialSource: any PulseSource
  private let reopen: @Sendable () throws(SensorError) -> any PulseSource
  private let sleepClock: any SensorClock
  private let timeBase: TimeBase
  private let store: StoreStage?
  private let board: StatusBoard
  private let events: Mailbox<MonitorEvent>
  /// Baselines from the store, applied to the analyzer at the next block.
  private let relay: BaselineRelay
  private let dataClock: DataClock
  private let onFirstWindow: @Sendable () -> Void
  private let progress = Mutex(Progress())
  private let current: Mutex<any PulseSource>
  private let logger = Logger(label: "stressmon.monitor")

  init(
    settings: Settings, source: any PulseSource, reopen: @escaping @Sendable () throws(SensorError) -> any PulseSource,
    sleepClock: any SensorClock, timeBase: TimeBase, store: StoreStage?, board: StatusBoard,
    events: Mailbox<MonitorEvent>, baseline: PersonalBaseline, relay: BaselineRelay, dataClock: DataClock,
    onFirstWindow: @escaping @Sendable () -> Void = {}
  ) {
    self.onFirstWindow = onFirstWindow
    self.relay = relay
    self.dataClock = dataClock
    self.settings = settings
    initialSource = source
    rateHz = source.info.sampleRateHz
    polarity = source.info.polarity
    self.reopen = reopen
    self.sleepClock = sleepClock
    self.timeBase = timeBase
    self.store = store
    self.board = board
    self.events = events
    current = Mutex(source)
    progress.withLock { $0.baseline = baseline }
  }

  var snapshot: Progress { progress.withLock { $0 } }
  var source: any PulseSource { current.withLock { $0 } }
  var streamSeconds: Double { progress.withLock { $0.streamSeconds } }

  // MARK: - Run

  /// Runs until the source ends, the duration is reached, or the task is cancelled (a stop request).
  func run() async throws(MonitorError) {
    var analyzer: PulseAnalyzer
    do {
      analyzer = try PulseAnalyzer(
        rateHz: rateHz, polarity: polarity, configuration: settings.analyzer,
        baseline: progress.withLock { $0.baseline })
    } catch {
      throw .unavailable(error.description, code: 65)
    }
    let durationSamples = settings.durationSeconds.map { Int64(($0 * rateHz).rounded()) }
    var collected: [AnalysisEvent] = []
    var pendingGap = 0
    var liveQuality = SignalQuality.settling
    var source = initialSource
    while !Task.isCancelled {
      if let update = relay.take() {
        analyzer.baseline = update
        progress.withLock { $0.baseline = update }
      }
      let block: PulseBlock?
      do {
        block = try await source.nextBlock()
      } catch {
        guard let reopened = await recover(from: error, failed: source, analyzer: analyzer) else { break }
        source = reopened.source
        pendingGap += reopened.lostSamples
        continue
      }
      guard var block else {
        if !Task.isCancelled { progress.withLock { $0.sourceEnded = true } }
        break
      }
      if let durationSamples {
        let remaining = Int(max(0, durationSamples - analyzer.streamSamples - Int64(block.gapBefore + pendingGap)))
        if block.count > remaining { block.ir.removeLast(block.count - remaining) }
      }
      collected.removeAll(keepingCapacity: true)
      analyzer.process(block: block.ir, gapBefore: block.gapBefore + pendingGap) { collected.append($0) }
      pendingGap = 0
      handle(collected, analyzer: analyzer, liveQuality: &liveQuality)
      if let durationSamples, analyzer.streamSamples >= durationSamples {
        progress.withLock { $0.durationReached = true }
        break
      }
      if !settings.speed.isPaced { await applyBackPressure() }
    }
    if progress.withLock({ $0.sourceEnded || $0.durationReached }) {
      // The end of the data (not a stop request): judge the intervals still waiting and emit every window that
      // ended, as `stressmon analyze` does at the end of a file.
      collected.removeAll(keepingCapacity: true)
      analyzer.finish { collected.append($0) }
      handle(collected, analyzer: analyzer, liveQuality: &liveQuality)
    }
  }

  // MARK: - Events

  private func handle(_ events: [AnalysisEvent], analyzer: PulseAnalyzer, liveQuality: inout SignalQuality) {
    let now = Double(analyzer.streamSamples) / rateHz
    let clockNow = timeBase.clock.reading()
    var records: [MeasurementRecord] = []
    var ibis: [IBIRecord] = []
    var beats = 0
    for event in events {
      switch event {
      case .beat:
        beats += 1
      case .interval(let interval) where interval.isClean:
        let reading = timeBase.reading(at: interval.endSeconds, streamSeconds: now, now: clockNow)
        ibis.append(IBIRecord(
          wall: reading.wall, monotonic: reading.monotonic, bootId: reading.bootId,
          clockSynchronised: reading.synchronised, ibiMs: interval.milliseconds, segment: interval.segment))
      case .interval:
        break
      case .quality(let quality, let at):
        liveQuality = quality
        let live = quality
        board.update(atData: at, wall: timeBase.wall(streamSeconds: at)) { status in
          Self.apply(quality: live, to: &status)
        }
      case .gap(let samples, let at):
        progress.withLock {
          $0.gaps += 1
          $0.lostSamples += samples
        }
        self.events.offer(.gap(samples: samples, at: EventTime(dataSeconds: at)))
      case .window(let summary):
        let record = makeRecord(summary, streamSeconds: now, clockNow: clockNow, baseline: analyzer.baseline)
        records.append(record)
        let first = progress.withLock { progress -> Bool in
          progress.windows += 1
          return progress.windows == 1
        }
        if first { onFirstWindow() }
        progress.withLock { progress in
          if let category = summary.stress?.category {
            progress.categories[category, default: 0] += 1
          } else {
            progress.uncategorised[summary.quality, default: 0] += 1
          }
        }
        self.events.offer(.window(record, summary, at: EventTime(dataSeconds: now)))
        let live = liveQuality
        board.update(atData: now, wall: record.windowEnd) { status in
          Self.apply(window: summary, wall: record.windowEnd, liveQuality: live, to: &status)
        }
      }
    }
    dataClock.seconds = now
    if settings.speed.isPaced && !dataClock.hasOrigin {
      // Paced runs: the LEDs' clock is the sensor's; this is where data time 0 sits on it.
      dataClock.originMilliseconds = sleepClock.now() / 1_000_000 - Int64((now * 1000).rounded())
    }
    progress.withLock {
      $0.streamSeconds = now
      $0.samples = analyzer.streamSamples
      $0.beats += beats
    }
    store?.submit(records: records, ibis: ibis)
  }

  private func makeRecord(
    _ summary: HRVWindowSummary, streamSeconds: Double, clockNow: ClockReading, baseline current: PersonalBaseline
  ) -> MeasurementRecord {
    let end = timeBase.reading(at: summary.endSeconds, streamSeconds: streamSeconds, now: clockNow)
    let baseline = summary.stress?.baseline ?? current
    let modified: Double
    switch timeBase.kind {
    case .live: modified = clockNow.wall
    case .simulated: modified = end.wall
    }
    return MeasurementRecord(
      id: MeasurementID.make(unixMilliseconds: Int64((end.wall * 1000).rounded(.down))), deviceId: settings.deviceID,
      windowStart: end.wall - (summary.endSeconds - summary.startSeconds), windowEnd: end.wall, bootId: end.bootId,
      monotonicEnd: end.monotonic, clockSynchronised: end.synchronised, stressLevel: summary.stress?.level,
      category: summary.stress?.category, confidence: summary.stress?.confidence ?? 0, sdnnMs: summary.metrics?.sdnnMs,
      rmssdMs: summary.metrics?.rmssdMs, heartRateBpm: summary.metrics?.meanHeartRateBpm,
      baselineHrvMs: baseline.hrvMs, restingHeartRateBpm: baseline.restingHeartRateBpm,
      baselinePersonal: baseline.isPersonal, quality: summary.quality, beats: summary.cleanIntervals,
      rejectedBeats: summary.rejectedIntervals, modifiedAt: modified)
  }

  // MARK: - State machine

  /// A change of the detector's live signal state.
  static func apply(quality: SignalQuality, to status: inout MonitorStatus) {
    switch quality {
    case .noContact:
      status.phase = .noContact
      status.result = nil
    case .saturated:
      status.phase = .uncategorised(.saturated)
      status.result = nil
    case .settling, .good, .clipped:
      switch status.phase {
      case .starting, .noContact, .uncategorised(.saturated): status.phase = .settling
      default: break
      }
    case .poorSignal:
      break  // the window decides: beats may still be good enough
    }
  }

  /// A finished window: scored (measuring, or learning while the default baseline applies) or not.
  static func apply(
    window: HRVWindowSummary, wall: Double, liveQuality: SignalQuality, to status: inout MonitorStatus
  ) {
    // Windows come seconds after they end: with no finger on the sensor now, an earlier good window is not
    // what the wearer should see.
    if liveQuality == .noContact {
      status.phase = .noContact
      status.result = nil
      status.resultAt = nil
      return
    }
    if let stress = window.stress {
      status.result = stress
      status.resultAt = wall
      status.phase = stress.baseline.isPersonal ? .measuring : .learningBaseline
      if stress.baseline.isPersonal {
        status.baselineProgress = nil
      } else if let progress = status.baselineProgress {
        status.baselineProgress = (min(progress.needed, progress.windows + 1), progress.needed)
      }
      return
    }
    status.result = nil
    status.resultAt = nil
    if window.quality == .noContact {
      // The window is late (it ended seconds ago); contact is back now.
      status.phase = .settling
    } else {
      status.phase = .uncategorised(window.quality)
    }
  }

  // MARK: - Recovery and back-pressure

  /// The sensor failed: show it, reopen with backoff until it works or the run is stopped. Returns the new
  /// source and the samples the outage lasted (a gap), or nil when stopped.
  private func recover(
    from error: SensorError, failed: any PulseSource, analyzer: PulseAnalyzer
  ) async -> (source: any PulseSource, lostSamples: Int)? {
    await failed.stop()
    let startedAt = sleepClock.now()
    var delay = settings.retry.initialSeconds
    let at = Double(analyzer.streamSamples) / rateHz
    logger.error("sensor lost; retrying", metadata: ["error": "\(error)", "retry_s": "\(delay)"])
    events.offer(.notice("sensor lost: \(error.description)", at: EventTime(dataSeconds: at)))
    while !Task.isCancelled {
      let wait = delay
      board.update { status in
        status.faults.removeAll { $0.name == "sensor" }
        status.faults.append(.sensor(error.description, retryInSeconds: wait))
        status.result = nil
      }
      do { try await sleepClock.sleep(nanoseconds: Int64(delay * 1e9)) } catch { return nil }
      do {
        let source = try reopen()
        try await source.start()
        guard source.info.sampleRateHz == rateHz else {
          throw SensorError.sampleRateMismatch(measuredHz: source.info.sampleRateHz, configuredHz: rateHz)
        }
        current.withLock { $0 = source }
        let lost = max(1, Int((Double(sleepClock.now() - startedAt) / 1e9 * rateHz).rounded()))
        board.update { status in
          status.faults.removeAll { $0.name == "sensor" }
          status.phase = .settling
        }
        logger.notice("sensor back", metadata: ["lost_samples": "\(lost)"])
        events.offer(.notice("sensor back after \(lost) lost samples", at: EventTime(dataSeconds: at)))
        return (source, lost)
      } catch {
        logger.warning("sensor still unavailable", metadata: ["error": "\(error)"])
        delay = min(settings.retry.maximumSeconds, delay * 2)
      }
    }
    return nil
  }

  /// `--speed max`: wait for the store and the outputs instead of letting their queues grow.
  private func applyBackPressure() async {
    await board.waitForRoom(limit: 64)
    while let store, store.backlog > 2_048 {
      do { try await Task.sleep(nanoseconds: 500_000) } catch { return }
    }
  }
}
