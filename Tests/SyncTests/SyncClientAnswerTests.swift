import FoundationEssentials
import Sync
import SyncTestSupport
import SyncWire
import Testing

/// What the client makes of answers that are not a plain success: refusals from something in front of the hub,
/// versions the hub did not take, and the backlog each batch reports.
@Suite("Sync client: answers that are not the hub's, kept versions, backlog")
struct SyncClientAnswerTests {
  func client(_ outbox: MemoryOutbox, _ transport: ScriptedTransport, clock: RecordingClock = RecordingClock(),
              maxAttempts: Int = 6) throws -> SyncClient {
    try SyncClient(
      outbox: outbox, transport: transport, configuration: .test(maxAttempts: maxAttempts), clock: clock,
      random: { 0.5 })
  }

  @Test("a proxy answering 431 to everything is retried like an outage: nothing is quarantined")
  func proxyRefusalIsNotTheRowsFault() async throws {
    // Given a proxy in front of the hub that answers every request 431 with its own HTML page
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 40))
    let clock = RecordingClock()
    let transport = ScriptedTransport(
      [], then: .answer(status: 431, headers: [], body: "<html><h1>431 Request Header Fields Too Large</h1></html>"))
    // When a run meets it
    let report = try await client(outbox, transport, clock: clock, maxAttempts: 3).runOnce()
    // Then it backed off and stopped as for an unreachable hub; every row is still pending, none quarantined
    #expect(clock.recorded.count == 3)
    #expect(try outbox.quarantined().isEmpty)
    #expect(try outbox.outboxStatus().pending == 40)
    guard case .hubUnavailable(_, let problem)? = report.stoppedBy else {
      Issue.record("expected hubUnavailable, got \(String(describing: report.stoppedBy))")
      return
    }
    #expect(problem.contains("HTTP 431") && problem.contains("not the hub"))
    // and it never split the batch (splitting is for rows the hub itself refused)
    #expect(transport.sent.allSatisfy { $0.request.records.count == 40 })
  }

  @Test("a 404 without the hub's body is retried; the hub's own 404 stops the run")
  func foreign404IsRetriedHub404Stops() async throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 5)
    let foreign = MemoryOutbox(records: rows)
    let portal = ScriptedTransport([.answer(status: 404, headers: [], body: "Not Found")])
    let retried = try await client(foreign, portal).runOnce()
    #expect(retried.drained && retried.uploaded == 5 && retried.retries == 1)

    let hub = MemoryOutbox(records: rows)
    let refusing = ScriptedTransport([
      .answer(status: 404, headers: [], body: #"{"error":"not_found","message":"no such route"}"#)
    ])
    let stopped = try await client(hub, refusing).runOnce()
    #expect(stopped.stoppedBy == .hubRefused(status: 404, message: "not_found: no such route"))
    #expect(try hub.outboxStatus().pending == 5)
  }

  @Test("rows the hub kept a newer version of leave the outbox and are counted, not reported as uploaded")
  func keptNewerIsReported() async throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 10)
    let outbox = MemoryOutbox(records: rows)
    let transport = ScriptedTransport([.keepNewer([rows[2].id, rows[7].id])])
    let report = try await client(outbox, transport).runOnce()
    #expect(report.uploaded == 8 && report.keptNewer == 2 && report.quarantined == 0 && report.drained)
    #expect(try outbox.pendingUploads(limit: 500).isEmpty)
    #expect(try outbox.quarantined().isEmpty)
  }

  @Test("each batch tells the hub how many rows still wait on the device after it")
  func backlogIsReported() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 1203))
    let transport = ScriptedTransport([])
    _ = try await client(outbox, transport).runOnce()
    #expect(transport.sent.map(\.request.outboxPending) == [703, 203, 0])
  }
}
