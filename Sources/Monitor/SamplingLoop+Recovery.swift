import Analysis
import Logging
import Sensors
import Synchronization

extension SamplingLoop {
  // MARK: - Recovery and back-pressure

  /// The sensor failed: show it, reopen with backoff until it works or the run is stopped. Returns the new
  /// source and the samples the outage lasted (a gap), or nil when stopped.
  func recover(
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
      do { try await waitFeedingWatchdog(nanoseconds: Int64(delay * 1e9)) } catch { return nil }
      do {
        let source = try input.reopen()
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

  /// Waits on the sensor's clock in pieces of at most a quarter of the watchdog interval, with a heartbeat after
  /// each: waiting to reopen a lost sensor is the loop working as meant, not a hang.
  private func waitFeedingWatchdog(nanoseconds: Int64) async throws {
    var remaining = nanoseconds
    while remaining > 0 {
      let step = min(remaining, supervision.service.heartbeatSliceNanoseconds ?? remaining)
      try await sleepClock.sleep(nanoseconds: step)
      remaining -= step
      supervision.service.progress(atNanoseconds: PacedClock.monotonicNanoseconds())
    }
  }

  /// `--speed max`: wait for the store and the outputs instead of letting their queues grow, and for the store to
  /// have scored the baseline after every window handed over (so the next block sees a new baseline at once).
  func applyBackPressure() async {
    await board.waitForRoom(limit: 64)
    while let store, store.backlog > 2_048 || store.windowsInFlight > 0 {
      do { try await Task.sleep(nanoseconds: 500_000) } catch { return }
    }
  }
}
