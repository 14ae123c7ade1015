import FoundationEssentials
import Logging
import SyncWire

/// Drains a `SyncOutbox` to the hub: batches of ≤ 500 rows, gzip JSON, bearer token, full-jitter backoff with
/// a cap, `Retry-After` honoured, rejected rows quarantined with the hub's reason. `stressmon sync` and the
/// daemon's background sync both run this type.
///
/// Failure rules (docs/sync.md):
/// - 2xx with per-row results: accepted rows leave the outbox, rejected rows are quarantined with the reason.
/// - 408, 429, 5xx, timeouts, refused connections and garbage answers: retried with backoff; the batch is the
///   same rows again, so a retry after a lost answer never duplicates (the hub upserts by id).
/// - 400, 413, 422 with the hub's `{error, message}` body (the batch as a whole is refused): the batch is split in
///   halves until the offending rows are alone, and only those are quarantined; good rows still go through.
/// - Any other 4xx without that body comes from something in front of the hub (a proxy answering 431, a captive
///   portal): the hub was not reached, so it is retried like an outage and nothing is quarantined.
/// - 401, 403, 404 from the hub, redirects, an untrusted certificate or a host name it is not issued for: the
///   device itself is refused; the run stops and nothing leaves the outbox.
/// - `kept_newer` rows: the hub holds a newer version; they leave the outbox (resending cannot land them) and are
///   counted and logged, so nobody believes the change landed.
public final class SyncClient: Sendable {
  // MARK: - Properties

  private let outbox: any SyncOutbox
  private let transport: any SyncTransport
  private let configuration: SyncConfiguration
  private let clock: any SyncClock
  private let random: @Sendable () -> Double
  private let logger: Logger

  // MARK: - Initialization

  /// - Parameters:
  ///   - random: uniform in [0, 1); the jitter source, injectable so tests can assert the schedule.
  public init(
    outbox: any SyncOutbox, transport: any SyncTransport, configuration: SyncConfiguration,
    clock: any SyncClock = SystemSyncClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    logger: Logger = Logger(label: "stressmon.sync")
  ) throws {
    _ = try configuration.validatedBaseURL()
    self.outbox = outbox
    self.transport = transport
    self.configuration = configuration
    self.clock = clock
    self.random = random
    self.logger = logger
  }

  // MARK: - Public

  /// Sends every pending row once, retrying failures up to `maxAttemptsPerRun` times with backoff, all within
  /// `configuration.deadline` (a request's timeout is cut to what is left of it, and a retry whose wait would pass
  /// it is not made). Throws only when the outbox itself fails (or the task is cancelled); hub problems and the
  /// deadline end the run with `SyncReport.stoppedBy` set.
  public func runOnce() async throws -> SyncReport {
    var report = SyncReport()
    var handled: Set<String> = []
    var splits: [[MeasurementRecord]] = []
    var consecutiveFailures = 0
    var lastProblem: String?
    let deadline = clock.monotonic() + configuration.deadline
    // Rows waiting when the run began, less those sent since: the backlog each batch reports to the hub.
    let status = try outboxCall { try outbox.outboxStatus() }
    var backlog = status.pending
    // Rows in quarantine when the run began, plus those quarantined since: each batch reports it to the hub too.
    let quarantinedBefore = status.quarantined
    runLoop: while true {
      try Task.checkCancellation()
      let remaining = deadline - clock.monotonic()
      guard remaining > 0 else {
        report.stoppedBy = .deadline(seconds: configuration.deadline, lastProblem: lastProblem)
        break
      }
      let batch: [MeasurementRecord]
      let fromSplit = !splits.isEmpty
      if let next = splits.popLast() {
        batch = next
      } else {
        let pending = try outboxCall { try outbox.pendingUploads(limit: configuration.batchSize) }
        guard let first = pending.first else { break }
        batch = Array(pending.prefix { $0.deviceId == first.deviceId })
        if let repeated = batch.first(where: { handled.contains($0.id) }) {
          throw SyncError.outbox("row \(repeated.id) came back after it was acknowledged; the outbox did not record it")
        }
      }
      report.requests += 1
      if consecutiveFailures > 0 { report.retries += 1 }
      let timeout = min(configuration.requestTimeout, remaining)
      let quarantined = min(SyncAPI.maxOutboxPending, quarantinedBefore + report.quarantined)
      switch await send(
        batch, outboxPending: max(0, backlog - batch.count), outboxQuarantined: quarantined, timeout: timeout)
      {
      case .answered(let response):
        consecutiveFailures = 0
        backlog = max(0, backlog - batch.count)
        let now = clock.now()
        let accepted = response.results.filter { $0.status == .accepted }.map(\.id)
        let keptNewer = response.results.filter { $0.status == .keptNewer }
        try outboxCall { try outbox.markUploaded(ids: accepted + keptNewer.map(\.id), at: now) }
        for row in keptNewer {
          logger.warning(
            "hub kept a newer version; this change did not land",
            metadata: ["id": "\(row.id)", "reason": "\(row.reason ?? "")"])
        }
        report.keptNewer += keptNewer.count
        let rejected = response.results.filter { $0.status == .rejected }
        for row in rejected {
          let reason = "hub rejected the row: " + (row.reason ?? "no reason given")
          try outboxCall { try outbox.quarantine(id: row.id, reason: reason, at: now) }
        }
        if let first = rejected.first {
          // One line per batch, not per row: a clock gone wrong refuses thousands of rows for the same reason.
          logger.warning(
            "rows quarantined",
            metadata: [
              "rows": "\(rejected.count)", "first_id": "\(first.id)", "first_reason": "\(first.reason ?? "")",
            ])
          report.firstQuarantineReason = report.firstQuarantineReason ?? first.reason
        }
        handled.formUnion(response.results.map(\.id))
        report.uploaded += accepted.count
        report.quarantined += response.rejectedCount
        logger.info("batch uploaded", metadata: ["rows": "\(batch.count)", "accepted": "\(accepted.count)"])
      case .retry(let problem, let retryAfter):
        // A half of a split batch is not what the outbox would hand out next: keep it to resend as it is.
        if fromSplit { splits.append(batch) }
        lastProblem = problem
        guard consecutiveFailures < configuration.maxAttemptsPerRun else {
          report.stoppedBy = .hubUnavailable(attempts: consecutiveFailures + 1, lastProblem: problem)
          break runLoop
        }
        let wait = configuration.backoff.delay(attempt: consecutiveFailures, unitRandom: random(), retryAfter: retryAfter)
        guard clock.monotonic() + wait < deadline else {
          // The retry would come after the deadline: stop now rather than sleep until it.
          report.stoppedBy = .hubUnavailable(attempts: consecutiveFailures + 1, lastProblem: problem)
          break runLoop
        }
        consecutiveFailures += 1
        logger.notice(
          "upload failed, retrying",
          metadata: ["problem": "\(problem)", "attempt": "\(consecutiveFailures)", "wait_s": "\(wait.formattedSeconds)"])
        try await clock.sleep(seconds: wait)
      case .batchRefused(let status, let reason):
        consecutiveFailures = 0
        if batch.count > 1 {
          let middle = batch.count / 2
          splits.append(Array(batch[middle...]))
          splits.append(Array(batch[..<middle]))
          logger.notice("batch refused, splitting", metadata: ["status": "\(status)", "rows": "\(batch.count)"])
        } else if let row = batch.first {
          let text = "hub refused the row (HTTP \(status)): \(reason)"
          try outboxCall { try outbox.quarantine(id: row.id, reason: text, at: clock.now()) }
          handled.insert(row.id)
          report.quarantined += 1
          report.firstQuarantineReason = report.firstQuarantineReason ?? text
          logger.warning("row quarantined", metadata: ["id": "\(row.id)", "reason": "\(text)"])
        }
      case .untrusted(let problem):
        // A TLS handshake that failed will fail on retry: stop and say what to configure. The caller reports
        // `stoppedBy` (the CLI's one error line, the daemon's "sync paused"), so this is a detail.
        report.stoppedBy = .configuration(problem)
        logger.info("TLS handshake with the hub failed", metadata: ["problem": "\(problem)"])
        break runLoop
      case .deviceRefused(let status, let message):
        report.stoppedBy = .hubRefused(status: status, message: message)
        logger.info("hub refused this device", metadata: ["status": "\(status)", "message": "\(message)"])
        break runLoop
      case .cancelled:
        throw CancellationError()
      }
    }
    report.status = try outboxCall { try outbox.outboxStatus() }
    return report
  }

  /// The daemon's background sync: `runOnce` every `interval` seconds, sooner after new data is not needed
  /// (the interval is short), later after failures (backoff continues across runs). Returns when cancelled.
  public func run() async {
    var failedRuns = 0
    while !Task.isCancelled {
      var wait = configuration.interval
      do {
        let report = try await runOnce()
        if case .deadline = report.stoppedBy, report.uploaded > 0 {
          // A backlog larger than one run can send, with the hub taking it: go on soon, this is no failure.
          failedRuns = 0
          wait = Self.continueAfterDeadlineSeconds
        } else if let problem = report.stoppedBy {
          failedRuns += 1
          wait = configuration.backoff.delay(attempt: failedRuns + configuration.maxAttemptsPerRun, unitRandom: random(), retryAfter: nil)
          logger.warning("sync paused", metadata: ["problem": "\(problem)", "next_s": "\(wait.formattedSeconds)"])
        } else {
          failedRuns = 0
        }
      } catch is CancellationError {
        return
      } catch {
        logger.error("sync failed", metadata: ["problem": "\(error)"])
      }
      do { try await clock.sleep(seconds: wait) } catch { return }
    }
  }

  /// Between background runs when the last one reached its deadline while the hub was taking rows.
  static let continueAfterDeadlineSeconds = 1.0

  // MARK: - Private

  private enum BatchOutcome {
    case answered(IngestResponse)
    case retry(problem: String, retryAfter: Double?)
    case batchRefused(status: Int, reason: String)
    case deviceRefused(status: Int, message: String)
    case untrusted(String)
    case cancelled
  }

  private func send(
    _ batch: [MeasurementRecord], outboxPending: Int, outboxQuarantined: Int, timeout: Double
  ) async -> BatchOutcome {
    let body: [UInt8]
    do {
      body = try SyncBody.encode(IngestRequest(
        deviceId: batch[0].deviceId, records: batch, outboxPending: outboxPending, outboxQuarantined: outboxQuarantined))
    } catch {
      return .batchRefused(status: 0, reason: "the row could not be encoded: \(error)")
    }
    let headers: [(name: String, value: String)] = [
      ("Authorization", "Bearer " + configuration.token),
      ("Content-Type", "application/json"),
      ("Content-Encoding", "gzip"),
      ("Accept", "application/json"),
      ("User-Agent", "stressmon-sync/1"),
    ]
    let response: SyncHTTPResponse
    do {
      response = try await transport.post(
        path: SyncAPI.measurementsPath, body: body, headers: headers, timeout: timeout)
    } catch let error as SyncTLSFailure {
      return .untrusted(error.description)
    } catch is CancellationError {
      return .cancelled
    } catch {
      return .retry(problem: "\(error)", retryAfter: nil)
    }
    return classify(response, batch: batch)
  }

  private func classify(_ response: SyncHTTPResponse, batch: [MeasurementRecord]) -> BatchOutcome {
    let status = response.status
    let retryAfter = response.header("Retry-After").flatMap { RetryAfter.seconds(from: $0, now: clock.now()) }
    let message = Self.errorMessage(response.body)
    let fromHub = Self.hubError(response.body) != nil
    switch status {
    case 200..<300:
      guard let decoded = try? JSONDecoder().decode(IngestResponse.self, from: Data(response.body)),
        decoded.results.count == batch.count, Set(decoded.results.map(\.id)) == Set(batch.map(\.id))
      else {
        let problem = "hub answered HTTP \(status) with a body that is not an ingest result for this batch "
          + "(starts '\(Self.preview(response.body))'); is --hub pointing at a stressmon hub?"
        logger.error("garbage answer from hub", metadata: ["status": "\(status)", "body": "\(Self.preview(response.body))"])
        return .retry(problem: problem, retryAfter: retryAfter)
      }
      return .answered(decoded)
    case 400..<500 where !fromHub && status != 408 && status != 429:
      // Not the hub's answer (it always sends {error, message}): a proxy or portal in between. The hub was not
      // reached, so nothing is the rows' fault.
      return .retry(
        problem: "HTTP \(status) from something that is not the hub (\(message)); a proxy in between, or check --hub",
        retryAfter: retryAfter)
    case 401, 403, 404, 405:
      return .deviceRefused(status: status, message: message)
    case 300..<400:
      let target = response.header("Location") ?? "?"
      return .deviceRefused(status: status, message: "redirected to \(target); set --hub to the final URL")
    case 408, 429, 500..<600:
      return .retry(problem: "hub answered HTTP \(status): \(message)", retryAfter: retryAfter)
    case 400..<500:
      return .batchRefused(status: status, reason: message)
    default:
      return .retry(problem: "hub answered an unexpected HTTP \(status)", retryAfter: retryAfter)
    }
  }

  private func outboxCall<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError.outbox("\(error)")
    }
  }

  /// The hub's `{error, message}` body, if that is what `body` is.
  static func hubError(_ body: [UInt8]) -> ErrorBody? {
    try? JSONDecoder().decode(ErrorBody.self, from: Data(body))
  }

  /// The hub's `{error, message}` text, or a short preview of whatever else it sent.
  static func errorMessage(_ body: [UInt8]) -> String {
    if let decoded = hubError(body) {
      return "\(decoded.error): \(decoded.message)"
    }
    return body.isEmpty ? "no body" : "non-JSON body '\(preview(body))'"
  }

  static func preview(_ body: [UInt8]) -> String {
    let text = String(decoding: body.prefix(80), as: UTF8.self)
    return String(text.map { $0.isASCII && ($0.asciiValue ?? 0) >= 0x20 ? $0 : " " })
  }
}

extension Double {
  var formattedSeconds: String {
    let rounded = (self * 1000).rounded() / 1000
    return "\(rounded)"
  }
}
