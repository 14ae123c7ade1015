import FoundationEssentials
import Sync
import SyncTestSupport
import SyncWire
import Testing

@Suite("Sync client against a scripted hub")
struct SyncClientTests {
  func client(
    _ outbox: MemoryOutbox, _ transport: ScriptedTransport, clock: RecordingClock = RecordingClock(),
    random: [Double] = [0.5], configuration: SyncConfiguration = .test()
  ) throws -> SyncClient {
    let source = SequenceRandom(random)
    return try SyncClient(
      outbox: outbox, transport: transport, configuration: configuration, clock: clock, random: { source.next() })
  }

  @Test("1203 rows go in gzip batches of 500, 500 and 203 with the bearer token, oldest first")
  func batchesOfFiveHundred() async throws {
    // Given 1203 pending rows and a hub that accepts everything
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 1203)
    let outbox = MemoryOutbox(records: rows)
    let transport = ScriptedTransport([])
    // When one run drains the outbox
    let report = try await client(outbox, transport).runOnce()
    // Then three requests carried every row once, in order, and the outbox is empty
    #expect(transport.sent.map(\.request.records.count) == [500, 500, 203])
    #expect(transport.sent.flatMap(\.request.records) == rows)
    #expect(transport.sent.allSatisfy { $0.gzip })
    #expect(transport.sent.allSatisfy { sent in sent.headers.contains { $0 == ("Authorization", "Bearer 0123456789abcdef") } })
    #expect(transport.sent.allSatisfy { sent in sent.headers.contains { $0 == ("Content-Encoding", "gzip") } })
    #expect(report.uploaded == 1203 && report.drained && report.retries == 0)
    #expect(try outbox.outboxStatus() == OutboxStatus(pending: 0, waitingForClock: 0, quarantined: 0, lastUploadAt: 1_767_225_600))
  }

  @Test("failures are retried on the full-jitter schedule, Retry-After (seconds and date) honoured")
  func retryScheduleFollowsPolicy() async throws {
    // Given a hub that fails four different ways before accepting
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 10))
    let clock = RecordingClock()
    let transport = ScriptedTransport([
      .fail("connection refused"),
      .answer(status: 500, headers: [], body: #"{"error":"internal","message":"boom"}"#),
      .answer(status: 429, headers: [("Retry-After", "7")], body: ""),
      .answer(status: 503, headers: [("retry-after", "Thu, 01 Jan 2026 00:00:20 GMT")], body: "busy"),
      .answer(status: 200, headers: [], body: "<html>captive portal</html>"),
    ])
    // When a run goes through them with jitter fractions 0.5, 0.25, 0.5, 0.5, 1.0
    let report = try await client(outbox, transport, clock: clock, random: [0.5, 0.25, 0.5, 0.5, 1.0]).runOnce()
    // Then the waits are fraction × min(8, 2^n) except where Retry-After sets a floor (7 s; 20 s to the date)
    #expect(clock.recorded == [0.5, 0.5, 7, 20, 8])
    #expect(report.uploaded == 10 && report.retries == 5 && report.requests == 6 && report.drained)
    // and every attempt carried the same rows: a retry never invents or drops one
    #expect(Set(transport.sent.map { $0.request.records.map(\.id) }).count == 1)
  }

  @Test("rows the hub rejects are quarantined with its reason; the rest are uploaded")
  func rejectedRowsAreQuarantined() async throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 20)
    let outbox = MemoryOutbox(records: rows)
    let transport = ScriptedTransport([.accept(rejecting: [rows[3].id: "stress_level 120 is outside 0-100"])])
    let report = try await client(outbox, transport).runOnce()
    #expect(report.uploaded == 19 && report.quarantined == 1)
    let quarantined = try outbox.quarantined()
    #expect(quarantined.map(\.id) == [rows[3].id])
    #expect(quarantined.first?.reason.contains("stress_level 120 is outside 0-100") == true)
    #expect(try outbox.pendingUploads(limit: 500).isEmpty)
    #expect(transport.sent.count == 1)
  }

  @Test("a 422 for the whole batch is narrowed down by halving: only the bad rows are quarantined")
  func wholeBatchRefusalIsBisected() async throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 16)
    let bad: Set = [rows[5].id, rows[12].id]
    let outbox = MemoryOutbox(records: rows)
    let transport = ScriptedTransport([], then: .refuseIfContains(bad, status: 422))
    let report = try await client(outbox, transport).runOnce()
    #expect(Set(try outbox.quarantined().map(\.id)) == bad)
    #expect(report.uploaded == 14 && report.quarantined == 2 && report.drained)
    #expect(try outbox.quarantined().allSatisfy { $0.reason.contains("HTTP 422") && $0.reason.contains("row is invalid") })
    // Halving 16 rows around two bad ones takes at most 2·log2(16)+1 requests per bad row.
    #expect(transport.sent.count <= 1 + 2 * 2 * 4)
  }

  @Test("a wrong token stops the run; nothing leaves the outbox")
  func wrongTokenStops() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 5))
    let transport = ScriptedTransport([
      .answer(status: 401, headers: [], body: #"{"error":"unauthorized","message":"unknown token"}"#)
    ])
    let report = try await client(outbox, transport).runOnce()
    #expect(report.stoppedBy == .hubRefused(status: 401, message: "unauthorized: unknown token"))
    #expect(try outbox.outboxStatus().pending == 5)
    #expect(try outbox.quarantined().isEmpty)
    #expect(report.stoppedBy?.description.contains("token create") == true)
  }

  @Test("a hub down for the whole retry budget leaves every row pending")
  func retryBudgetExhausted() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 5))
    let clock = RecordingClock()
    let transport = ScriptedTransport([], then: .fail("connection refused"))
    let report = try await client(outbox, transport, clock: clock, configuration: .test(maxAttempts: 3)).runOnce()
    #expect(report.stoppedBy == .hubUnavailable(attempts: 4, lastProblem: "connection refused"))
    #expect(clock.recorded.count == 3)
    #expect(try outbox.outboxStatus().pending == 5)
  }

  @Test("rows measured before clock sync wait; they are not uploaded")
  func unsynchronisedRowsWait() async throws {
    var rows = try MeasurementFixtures.records(device: "desk-1", count: 6)
    rows[1].clockSynchronised = false
    rows[4].clockSynchronised = false
    let outbox = MemoryOutbox(records: rows)
    let transport = ScriptedTransport([])
    let report = try await client(outbox, transport).runOnce()
    #expect(report.uploaded == 4)
    #expect(report.status.waitingForClock == 2 && report.status.pending == 0)
  }

  @Test("plain HTTP, a missing scheme or an empty token are refused before any request")
  func configurationIsChecked() throws {
    var configuration = SyncConfiguration.test()
    configuration.hubURL = "http://hub.test"
    #expect(throws: SyncError.self) { try configuration.validatedBaseURL() }
    configuration.allowInsecureHTTP = true
    #expect(try configuration.validatedBaseURL() == "http://hub.test")
    configuration.hubURL = "hub.test"
    #expect(throws: SyncError.self) { try configuration.validatedBaseURL() }
    configuration = .test()
    configuration.token = ""
    #expect(throws: SyncError.self) { try configuration.validatedBaseURL() }
    configuration = .test(batchSize: 501)
    #expect(throws: SyncError.self) { try configuration.validatedBaseURL() }
  }
}

/// A clock that really sleeps, a thousand times faster.
struct FastClock: SyncClock {
  func now() -> Double { 1_767_225_600 }
  func sleep(seconds: Double) async throws { try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000)) }
}

@Suite("Background sync loop")
struct SyncLoopTests {
  @Test("the loop uploads rows added while it runs and returns when cancelled")
  func loopPicksUpNewRowsAndStops() async throws {
    let rows = try MeasurementFixtures.records(device: "desk-1", count: 30)
    let outbox = MemoryOutbox(records: Array(rows.prefix(10)))
    let transport = ScriptedTransport([.fail("offline")])
    var configuration = SyncConfiguration.test()
    configuration.interval = 5  // 5 ms with FastClock
    let client = try SyncClient(outbox: outbox, transport: transport, configuration: configuration, clock: FastClock())
    let loop = Task { await client.run() }
    // When rows arrive later, the next run picks them up
    try await Task.sleep(for: .milliseconds(50))
    outbox.add(Array(rows.dropFirst(10)))
    var waited = 0
    while try outbox.outboxStatus().pending > 0, waited < 200 {
      try await Task.sleep(for: .milliseconds(10))
      waited += 1
    }
    loop.cancel()
    await loop.value
    #expect(try outbox.outboxStatus().pending == 0)
    #expect(Set(transport.sent.flatMap(\.request.records).map(\.id)) == Set(rows.map(\.id)))
  }
}
