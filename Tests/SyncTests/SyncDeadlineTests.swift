import Dispatch
import Synchronization
import Sync
import SyncTestSupport
import SyncWire
import Testing

/// A run of the sync client ends within its deadline whatever the hub does (issue 43): the waits between retries and
/// every request's timeout are cut to what is left of it.
@Suite("Sync run deadline")
struct SyncDeadlineTests {
  static func configuration(deadline: Double, maxAttempts: Int = 20) -> SyncConfiguration {
    SyncConfiguration(
      hubURL: "https://hub.test", token: "0123456789abcdef", requestTimeout: 30, deadline: deadline,
      backoff: BackoffPolicy(base: 1, cap: 8, maxRetryAfter: 60), maxAttemptsPerRun: maxAttempts)
  }

  @Test("a hub that keeps failing: the run stops before a wait would pass the deadline, not after its 20 attempts")
  func failingHubStopsAtTheDeadline() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 5))
    let clock = RecordingClock()
    let transport = ScriptedTransport([], then: .fail("connection refused by hub.test:443"))
    let client = try SyncClient(
      outbox: outbox, transport: transport, configuration: Self.configuration(deadline: 10), clock: clock,
      random: { 0.99 })
    let report = try await client.runOnce()
    // Waits of 0.99, 1.98, 3.96 s; the next (7.92 s) would end past 10 s: no such wait, no fifth request.
    #expect(clock.recorded.count == 3)
    #expect(clock.recorded.reduce(0, +) <= 10)
    #expect(transport.sent.count == 4)
    #expect(report.stoppedBy == .hubUnavailable(attempts: 4, lastProblem: "connection refused by hub.test:443"))
    #expect(try outbox.outboxStatus().pending == 5)
  }

  @Test("each request's timeout is what is left of the deadline when that is less than --timeout")
  func requestTimeoutCutToTheDeadline() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 5))
    let clock = RecordingClock()
    let transport = ScriptedTransport([.fail("timed out"), .fail("timed out")])
    let client = try SyncClient(
      outbox: outbox, transport: transport, configuration: Self.configuration(deadline: 12), clock: clock,
      random: { 0.5 })
    let report = try await client.runOnce()
    #expect(report.drained)
    // 12 s at the start; 11.5 s after a 0.5 s wait; 10.5 s after the next 1 s wait.
    #expect(transport.sent.map(\.timeout) == [12, 11.5, 10.5])
  }

  @Test("a deadline already passed sends nothing and says why; the rows stay")
  func deadlineReached() async throws {
    let outbox = MemoryOutbox(records: try MeasurementFixtures.records(device: "desk-1", count: 5))
    let transport = ScriptedTransport([.fail("timed out")])
    let client = try SyncClient(
      outbox: outbox, transport: transport, configuration: Self.configuration(deadline: 0.6), clock: RecordingClock(),
      random: { 0.99 })
    let report = try await client.runOnce()
    // One attempt, a 0.99 s wait would pass the 0.6 s deadline: stopped after the first attempt.
    #expect(transport.sent.count == 1)
    #expect(report.stoppedBy?.description.contains("timed out") == true)
    #expect(try outbox.outboxStatus().pending == 5)
  }

  @Test("withTimeLimit: the caller is answered at the limit, not when work that ignores cancellation ends")
  func timeLimitDoesNotWaitForTheWork() async throws {
    let gate = Gate()
    let finished = Mutex(false)
    // A backstop only, so that a withTimeLimit that waited for the work fails here instead of hanging the suite.
    // Long, because in the parallel suite other tests' blocking waits can keep the 0.1 s timer from running for a
    // minute on two cores.
    DispatchQueue.global().asyncAfter(deadline: .now() + 600) { gate.open() }
    await #expect(throws: TimeLimitExceeded.self) {
      try await withTimeLimit(0.1) {
        // Work that never looks at cancellation (a call stuck below): it ends only when the gate opens, which
        // this test does once the time limit has answered. No race with the clock however busy the machine is.
        await gate.wait()
        finished.withLock { $0 = true }
        return 1
      }
    }
    // The time limit answered while the work was still stuck.
    #expect(finished.withLock { !$0 })
    gate.open()
  }
}

/// Waiters resume once `open()` has been called (at once if it already has).
private final class Gate: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let resumeNow = state.withLock { state -> Bool in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    waiters.forEach { $0.resume() }
  }
}
