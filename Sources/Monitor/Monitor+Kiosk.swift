import Sync
import Synchronization

extension Monitor {
  // MARK: - Kiosk

  func runKiosk(
    board: StatusBoard, clocks: RunClocks, dataClock: DataClock, events: Mailbox<MonitorEvent>,
    info: MonitorStartInfo, summary: inout MonitorSummary
  ) async -> Result<Void, MonitorError> {
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
    let kiosk = KioskLoop(
      transport: transport, device: configuration.kiosk.device, token: token, pollSeconds: configuration.kiosk.pollSeconds,
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
}
