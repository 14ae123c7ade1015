import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A publisher of retained state over MQTT 3.1.1 at QoS 1: it keeps the newest message of each topic it was
/// given and makes sure the broker has it, across broker restarts and network outages.
///
/// - `retain(_:)` never waits: it replaces the topic's value (the newest wins; an older one not yet delivered is
///   dropped and counted), so memory is bounded by the number of topics, whatever the broker does.
/// - `run()` connects (TLS, credentials, a last will), publishes every topic once per connection (the broker may
///   have restarted without its retained messages), then each new value, one PUBLISH in flight per topic until its
///   PUBACK; it sends PINGREQ after `keepAliveSeconds` of silence and reconnects with a growing, jittered delay
///   when anything fails. It wakes only for a new value, an answer, a keep-alive or a retry.
/// - `finish()` delivers what is pending, sends DISCONNECT and ends `run()`; when the broker is away it ends at
///   once (cancel `run()`'s task to cut a delivery short).
///
/// Locking: all state is in one `Mutex`; the connection's reader and writer tasks and callers of `retain` meet
/// there, and the `Doorbell` wakes the writer.
public final class MQTTClient: Sendable {
  /// What the client has done, for logs and tests.
  public struct Statistics: Sendable, Equatable {
    /// Connections the broker accepted (CONNACK 0).
    public var connections = 0
    /// Attempts that failed (refused, unreachable, timed out, dropped).
    public var failures = 0
    /// Messages the broker acknowledged (PUBACK).
    public var delivered = 0
    /// Values replaced by a newer one before they were delivered.
    public var superseded = 0
    /// Connected now.
    public var connected = false
  }

  struct Entry {
    var message: MQTTMessage
    var version: UInt64
    var delivered = false
    var inflight: UInt16?
  }

  struct InFlight {
    var entry: Int
    var version: UInt64
    var sentAt: UInt64
  }

  struct State {
    var entries: [Entry] = []
    var index: [String: Int] = [:]
    var nextVersion: UInt64 = 1
    var finishing = false
    var statistics = Statistics()
    // The current connection.
    var session = 0
    var connectAck: UInt8?
    var closed: MQTTError?
    var inflight: [UInt16: InFlight] = [:]
    var pingSentAt: UInt64?
    var acknowledgementsToSend: [UInt16] = []
    var lastPacketID: UInt16 = 0
  }

  /// PUBLISH packets in flight at once (one per topic; the daemon has eight topics).
  static let window = 16

  public let configuration: MQTTConfiguration
  let tls: NIOSSLContext?
  let group: any EventLoopGroup
  let logger: Logger
  let state = Mutex(State())
  /// Wakes the connection's writer: a new value, an answer, the connection lost, a stop.
  let doorbell = Doorbell()
  /// Wakes a reconnect delay: a stop only (new values wait for the connection).
  private let stopBell = Doorbell()
  /// Where the writer's and the delay's timers run.
  let timers: any EventLoop

  // MARK: - Initialization

  /// Checks the TLS settings (the CA file is read now). `group`: NIO's shared event loops by default, the ones
  /// the sync client uses too, so a device with both adds no thread.
  public init(
    configuration: MQTTConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "stressmon.mqtt")
  ) throws(MQTTError) {
    self.configuration = configuration
    self.group = group
    self.logger = logger
    timers = group.next()
    tls = configuration.useTLS ? try MQTTConnection.tlsContext(caFile: configuration.caFile) : nil
  }

  // MARK: - Public

  /// Makes `message` the newest value of its topic (published retained at QoS 1). An identical value is ignored.
  public func retain(_ message: MQTTMessage) {
    let changed = state.withLock { state -> Bool in
      guard let at = state.index[message.topic] else {
        state.index[message.topic] = state.entries.count
        state.entries.append(Entry(message: message, version: state.nextVersion))
        state.nextVersion += 1
        return true
      }
      guard state.entries[at].message != message else { return false }
      if !state.entries[at].delivered { state.statistics.superseded += 1 }
      state.entries[at].message = message
      state.entries[at].version = state.nextVersion
      state.entries[at].delivered = false
      state.nextVersion += 1
      return true
    }
    if changed { doorbell.ring() }
  }

  /// Delivers what is pending if connected, sends DISCONNECT and lets `run()` return.
  public func finish() {
    state.withLock { $0.finishing = true }
    doorbell.ring()
    stopBell.ring()
  }

  public var statistics: Statistics { state.withLock { $0.statistics } }

  /// Whether every topic's newest value has been acknowledged by the broker.
  public var isDelivered: Bool { state.withLock { state in state.entries.allSatisfy(\.delivered) } }

  /// Connects, publishes, keeps alive and reconnects until `finish()` (or the task is cancelled).
  public func run() async {
    var attempt = 0
    var lastProblem: String?
    while !Task.isCancelled && !state.withLock({ $0.finishing }) {
      let session = beginSession()
      let problem: MQTTError
      do {
        try await self.session(session)
        endSession()
        return
      } catch {
        problem = error
      }
      let wasConnected = endSession()
      if Task.isCancelled { return }
      state.withLock { $0.statistics.failures += 1 }
      if wasConnected {
        attempt = 0
        lastProblem = nil
      }
      attempt += 1
      let exponent = Double(min(attempt - 1, 30))
      let delay = problem.needsAttention
        ? configuration.retryMaximumSeconds
        : min(configuration.retryMaximumSeconds, configuration.retryInitialSeconds * pow2(exponent))
          * Double.random(in: 0.5..<1)
      let text = problem.description
      if text != lastProblem {
        let level: Logger.Level = problem.needsAttention ? .error : .warning
        logger.log(level: level, "MQTT broker not available; measuring goes on, the newest state is kept", metadata: [
          "broker": "\(configuration.brokerDescription)", "problem": "\(text)",
          "retry_s": "\(Int(delay.rounded(.up)))",
        ])
        lastProblem = text
      } else {
        logger.debug("MQTT reconnect failed", metadata: ["attempt": "\(attempt)", "problem": "\(text)"])
      }
      let retryAt = monotonicNanoseconds() + UInt64(delay * 1e9)
      while !Task.isCancelled && !state.withLock({ $0.finishing }) && monotonicNanoseconds() < retryAt {
        await stopBell.wait(untilNanoseconds: retryAt, on: timers)
      }
    }
  }

  /// Connects once, waits for CONNACK and disconnects: `stressmon doctor`'s check. Publishes nothing (no will:
  /// DISCONNECT discards it anyway). Use a client id of its own, or the broker drops the daemon's connection.
  public static func check(
    _ configuration: MQTTConfiguration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws(MQTTError) {
    var settings = configuration
    settings.will = nil
    let client = try MQTTClient(configuration: settings, group: group)
    client.finish()
    let session = client.beginSession()
    defer { client.endSession() }
    try await client.session(session)
  }
}

/// 2^exponent for the backoff (the core's PortableMath is not needed for a delay).
private func pow2(_ exponent: Double) -> Double {
  var value = 1.0
  var left = Int(exponent)
  while left > 0 {
    value *= 2
    left -= 1
  }
  return value
}
