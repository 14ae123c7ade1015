import Sync
import Synchronization

extension Monitor {
  // MARK: - Kiosk

  func runKiosk(
    run: RunContext, info: MonitorStartInfo, summary: inout MonitorSummary
  ) async -> Result<Void, MonitorError> {
    let (board, clocks, dataClock, events) = (run.status, run.clocks, run.dataClock, run.events)
    events.offer(.started(info))
    let transport: AsyncHTTPTransport
    let token: String
    do {
      token = try SyncRunner.readToken(configuration.kiosk.tokenFile, section: "kiosk")
    } catch {
      return .failure(error)
    }
    do {
      transport = try AsyncHTTPTransport(configuration: SyncConfiguration(
        hubURL: configuration.kiosk.hub, token: token,
        caFile: configuration.sync.caFile.isEmpty ? nil : configuration.sync.caFile,
        allowInsecureHTTP: configuration.sync.insecureHTTP, connectTimeout: environment.kioskTimeoutSeconds))
    } catch {
      return .failure(.usage("[kiosk] hub: \(error)"))
    }
    let indicatorClock = clocks.indicator
    let service = environment.service
    let kiosk = KioskLoop(
      transport: transport, device: configuration.kiosk.device, token: token, pollSeconds: configuration.kiosk.pollSeconds,
      staleAfterSeconds: configuration.kiosk.staleAfterSeconds, timeoutSeconds: environment.kioskTimeoutSeconds,
      board: board, events: events,
      dataSeconds: { [dataClock] in
        let seconds = Double(indicatorClock.nowMilliseconds()) / 1000
        dataClock.seconds = seconds
        return seconds
      },
      sleep: { seconds in
        // Between polls: heartbeats at least every quarter of the watchdog interval (the kiosk has no sensor
        // loop; its poll loop is what must keep going).
        var remaining = Int64(seconds * 1000)
        while remaining > 0 {
          let step = min(remaining, service.heartbeatSliceNanoseconds.map { $0 / 1_000_000 } ?? remaining)
          try await indicatorClock.sleep(milliseconds: step)
          remaining -= step
          service.progress(atNanoseconds: PacedClock.monotonicNanoseconds())
        }
      })
    board.publishCurrent()
    service.ready(status: "kiosk: showing \(configuration.kiosk.device) from \(configuration.kiosk.hub)")
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
}
