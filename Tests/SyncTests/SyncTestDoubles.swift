import FoundationEssentials
import Synchronization
import Sync
import SyncWire

/// A hub at the transport boundary: decodes each gzip request like the real hub and answers from a script,
/// so retry and quarantine rules can be checked request by request without a network.
final class ScriptedTransport: SyncTransport {
  enum Step {
    /// Answer with this status/headers/body.
    case answer(status: Int, headers: [(name: String, value: String)], body: String)
    /// Accept every row (or reject the ids given, with a reason).
    case accept(rejecting: [String: String])
    /// Refuse with a status when the batch contains any of these ids, else accept.
    case refuseIfContains(Set<String>, status: Int)
    /// Accept every row but these, of which the hub holds a newer version (`kept_newer`).
    case keepNewer(Set<String>)
    /// No answer: the connection failed.
    case fail(String)
  }

  struct Sent {
    var request: IngestRequest
    var headers: [(name: String, value: String)]
    var gzip: Bool
    var timeout: Double
  }

  private let script: Mutex<[Step]>
  private let fallback: Step
  private let log = Mutex<[Sent]>([])

  init(_ steps: [Step], then fallback: Step = .accept(rejecting: [:])) {
    script = Mutex(steps)
    self.fallback = fallback
  }

  var sent: [Sent] { log.withLock { $0 } }

  func post(path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Double) async throws
    -> SyncHTTPResponse
  {
    let request = try SyncBody.decode(body)
    log.withLock {
      $0.append(Sent(request: request, headers: headers, gzip: SyncBody.isGzip(body), timeout: timeout))
    }
    let step = script.withLock { $0.isEmpty ? fallback : $0.removeFirst() }
    switch step {
    case .answer(let status, let headers, let body):
      return SyncHTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    case .accept(let rejecting):
      return try Self.results(request) { rejecting[$0] }
    case .refuseIfContains(let ids, let status):
      if request.records.contains(where: { ids.contains($0.id) }) {
        let body = try JSONEncoder().encode(ErrorBody(error: "invalid_batch", message: "row is invalid"))
        return SyncHTTPResponse(status: status, body: Array(body))
      }
      return try Self.results(request) { _ in nil }
    case .keepNewer(let ids):
      let results = request.records.map { row in
        ids.contains(row.id)
          ? RowResult(id: row.id, status: .keptNewer, reason: "the hub keeps a newer version")
          : RowResult(id: row.id, status: .accepted)
      }
      return SyncHTTPResponse(status: 200, body: Array(try JSONEncoder().encode(IngestResponse(results: results))))
    case .fail(let message):
      throw TransportFailure(message: message)
    }
  }

  func shutdown() async throws {}

  private static func results(_ request: IngestRequest, reason: (String) -> String?) throws -> SyncHTTPResponse {
    let results = request.records.map { row in
      reason(row.id).map { RowResult(id: row.id, status: .rejected, reason: $0) } ?? RowResult(id: row.id, status: .accepted)
    }
    return SyncHTTPResponse(status: 200, body: Array(try JSONEncoder().encode(IngestResponse(results: results))))
  }

  struct TransportFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }
}

/// A clock that records every sleep instead of sleeping.
final class RecordingClock: SyncClock {
  private let sleeps = Mutex<[Double]>([])
  let fixedNow: Double

  init(now: Double = 1_767_225_600) {
    fixedNow = now
  }

  var recorded: [Double] { sleeps.withLock { $0 } }

  func now() -> Double { fixedNow }

  /// Time passes only by the sleeps (the deadline counts them).
  func monotonic() -> Double { sleeps.withLock { $0.reduce(0, +) } }

  func sleep(seconds: Double) async throws {
    sleeps.withLock { $0.append(seconds) }
  }
}

/// Jitter values handed out in order (then repeating the last one).
final class SequenceRandom: Sendable {
  private let values: Mutex<[Double]>

  init(_ values: [Double]) {
    self.values = Mutex(values)
  }

  func next() -> Double {
    values.withLock { values in values.count > 1 ? values.removeFirst() : (values.first ?? 0.5) }
  }
}

extension SyncConfiguration {
  static func test(batchSize: Int = 500, maxAttempts: Int = 6, deadline: Double = 3_600) -> SyncConfiguration {
    SyncConfiguration(
      hubURL: "https://hub.test", token: "0123456789abcdef", deadline: deadline, batchSize: batchSize,
      backoff: BackoffPolicy(base: 1, cap: 8, maxRetryAfter: 60), maxAttemptsPerRun: maxAttempts)
  }
}
