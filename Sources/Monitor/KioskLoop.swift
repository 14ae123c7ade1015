import FoundationEssentials
import Logging
import StressModel
import Sync
import SyncWire

/// Kiosk mode: no sensor and no store. Asks the hub for the latest measurement of one device every `poll_s`
/// (`GET /v1/devices/{id}/latest` with a reader token of that device) and shows it: its category, or the reason it is not scored;
/// "no data yet"; old data (window end more than `stale_after_s` before the hub's clock); or a hub that does not
/// answer (an error, with the last figures kept on the panel).
final class KioskLoop: Sendable {
  private let transport: AsyncHTTPTransport
  private let device: String
  private let token: String
  private let pollSeconds: Double
  private let staleAfterSeconds: Double
  private let timeoutSeconds: Double
  private let board: StatusBoard
  private let events: Mailbox<MonitorEvent>
  private let dataSeconds: @Sendable () -> Double
  private let sleep: @Sendable (Double) async throws -> Void
  private let logger = Logger(label: "stressmon.monitor.kiosk")

  init(
    transport: AsyncHTTPTransport, device: String, token: String, pollSeconds: Double, staleAfterSeconds: Double,
    timeoutSeconds: Double, board: StatusBoard, events: Mailbox<MonitorEvent>,
    dataSeconds: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) async throws -> Void
  ) {
    self.transport = transport
    self.device = device
    self.token = token
    self.pollSeconds = pollSeconds
    self.staleAfterSeconds = staleAfterSeconds
    self.timeoutSeconds = timeoutSeconds
    self.board = board
    self.events = events
    self.dataSeconds = dataSeconds
    self.sleep = sleep
  }

  /// Polls until cancelled (or `until` data seconds have passed). Returns the number of polls.
  func run(until limit: Double?) async -> Int {
    var polls = 0
    while !Task.isCancelled {
      if let limit, dataSeconds() >= limit { break }
      polls += 1
      await poll()
      do { try await sleep(pollSeconds) } catch { break }
    }
    return polls
  }

  func poll() async {
    let at = EventTime(dataSeconds: dataSeconds())
    do {
      let response = try await transport.get(
        path: SyncAPI.latestPath(device: device),
        headers: [("Accept", "application/json"), ("Authorization", "Bearer " + token)], timeout: timeoutSeconds)
      guard response.status == 200 else {
        let detail = String(decoding: response.body.prefix(160), as: UTF8.self)
        throw KioskProblem(text: "the hub answered \(response.status): \(detail)")
      }
      let latest: LatestResponse
      do {
        latest = try JSONDecoder().decode(LatestResponse.self, from: Data(response.body))
      } catch {
        throw KioskProblem(text: "the hub's answer is not a latest-measurement document: \(error)")
      }
      events.offer(.kiosk(latest, at: at))
      board.update { status in Self.apply(latest, staleAfter: self.staleAfterSeconds, to: &status) }
    } catch {
      let text = (error as? KioskProblem)?.text ?? "\(error)"
      logger.warning("hub did not answer", metadata: ["error": "\(text)"])
      board.update { status in
        status.faults = [.hub(text)]
      }
    }
  }

  /// What the hub's answer means for the kiosk's state.
  static func apply(_ latest: LatestResponse, staleAfter: Double, to status: inout MonitorStatus) {
    status.faults = []
    guard let record = latest.record else {
      status.phase = .waitingForData
      status.result = nil
      status.resultAt = nil
      return
    }
    status.resultAt = record.windowEnd
    if let level = record.stressLevel, let hrv = record.sdnnMs, let heartRate = record.heartRateBpm {
      let baseline = PersonalBaseline(
        hrvMs: record.baselineHrvMs, restingHeartRateBpm: record.restingHeartRateBpm,
        isPersonal: record.baselinePersonal, windowCount: 0, computedAt: nil)
      status.result = StressResult(
        level: level, confidence: record.confidence, hrvMs: hrv, heartRateBpm: heartRate, baseline: baseline)
    } else {
      status.result = nil
    }
    let age = latest.serverTime - record.windowEnd
    if age > staleAfter {
      status.phase = .stale(ageSeconds: age)
    } else if status.result != nil {
      status.phase = record.baselinePersonal ? .measuring : .learningBaseline
    } else {
      status.phase = record.quality == .noContact ? .noContact : .uncategorised(record.quality)
    }
  }
}

struct KioskProblem: Error {
  var text: String
}
