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

  /// Where samples come from: the source, how to open it again after a loss, and the clock it is paced by.
  struct Input: Sendable {
    var source: any PulseSource
    var reopen: @Sendable () throws(SensorError) -> any PulseSource
    var clock: any SensorClock
  }

  /// Where results go: the status board (→ LEDs, panel, events), the store (→ sync), the event mailbox, and the
  /// run's time (rows are stamped through `timeBase`; `dataClock` is "now" for everyone else).
  struct Outputs: Sendable {
    var status: StatusBoard
    var store: StoreStage?
    var events: Mailbox<MonitorEvent>
    var timeBase: TimeBase
    var dataClock: DataClock
  }

  /// The baseline scores start from, and the personal baselines the store hands back later.
  struct BaselineFeed: Sendable {
    var initial: PersonalBaseline
    var updates: BaselineRelay
  }

  /// Who watches the loop: systemd (READY once samples flow, WATCHDOG as blocks arrive) and the monitor (the first
  /// window releases start-up memory).
  struct Supervision: Sendable {
    var service: ServiceNotifier
    var onFirstWindow: @Sendable () -> Void = {}
    /// `STATUS=` sent with READY=1.
    var readyStatus = "measuring"
  }

  let settings: Settings
  let rateHz: Double
  let polarity: PulsePolarity
  let input: Input
  let outputs: Outputs
  let baselines: BaselineRelay
  let supervision: Supervision
  let progress = Mutex(Progress())
  let current: Mutex<any PulseSource>
  let logger = Logger(label: "stressmon.monitor")

  var sleepClock: any SensorClock { input.clock }
  var timeBase: TimeBase { outputs.timeBase }
  var store: StoreStage? { outputs.store }
  var board: StatusBoard { outputs.status }
  var events: Mailbox<MonitorEvent> { outputs.events }
  var dataClock: DataClock { outputs.dataClock }

  init(settings: Settings, input: Input, outputs: Outputs, baseline: BaselineFeed, supervision: Supervision) {
    self.settings = settings
    self.input = input
    self.outputs = outputs
    self.supervision = supervision
    baselines = baseline.updates
    rateHz = input.source.info.sampleRateHz
    polarity = input.source.info.polarity
    current = Mutex(input.source)
    progress.withLock { $0.baseline = baseline.initial }
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
    var source = input.source
    var ready = false
    while !Task.isCancelled {
      if let update = baselines.take() {
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
      // systemd: ready once samples flow; a heartbeat as they keep flowing (a hung transfer stops both).
      if !ready {
        ready = true
        supervision.service.ready(status: supervision.readyStatus)
      }
      supervision.service.progress(atNanoseconds: PacedClock.monotonicNanoseconds())
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
      case .quality(let quality, let at, _):
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
        if first { supervision.onFirstWindow() }
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
    let modified = timeBase.isPlaced ? end.wall : clockNow.wall
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

}

extension MonitorSummary {
  /// The measuring part of the summary: what the sampling loop did and what the store holds at the end.
  mutating func record(
    _ progress: SamplingLoop.Progress, store health: StoreWriter.Health, droppedRecords: Int, stop: StopSignal
  ) {
    dataSeconds = progress.streamSeconds
    samples = progress.samples
    lostSamples = progress.lostSamples
    gaps = progress.gaps
    beats = progress.beats
    windows = progress.windows
    categories = progress.categories
    uncategorised = progress.uncategorised
    baseline = progress.baseline
    // What the file holds of this run, not what was once committed: a disk-full clean-up may have deleted some.
    storedMeasurements = health.keptMeasurements ?? max(0, health.committedMeasurements - health.droppedForSpace)
    storedIBIs = health.committedIBIs
    unwrittenMeasurements = health.bufferedMeasurements + droppedRecords
    droppedForSpace = health.droppedForSpace
    aheadOfClock = health.aheadOfClock
    stopReason = progress.sourceEnded ? "end of recording"
      : progress.durationReached ? "duration reached" : stop.isStopped ? stop.reason : "ended"
    emulatorCPUMilliseconds = EmulatedI2CBus.deviceCPUNanoseconds.map { Double($0) / 1e6 }
  }
}
