import Logging
import NIOCore
import NIOSSL
import Synchronization

/// One connection of `MQTTClient`: CONNECT and CONNACK, then the writer (publishing, keep-alive, answer timeouts)
/// and the reader (acknowledgements) until the connection ends or the client finishes.
extension MQTTClient {
  func beginSession() -> Int {
    state.withLock { state in
      state.session += 1
      state.connectAck = nil
      state.closed = nil
      state.inflight = [:]
      state.pingSentAt = nil
      state.acknowledgementsToSend = []
      for at in state.entries.indices {
        state.entries[at].delivered = false
        state.entries[at].inflight = nil
      }
      return state.session
    }
  }

  /// Returns whether the connection had been accepted.
  @discardableResult
  func endSession() -> Bool {
    state.withLock { state in
      let wasConnected = state.statistics.connected
      state.statistics.connected = false
      state.session += 1
      return wasConnected
    }
  }

  func session(_ session: Int) async throws(MQTTError) {
    let errors = FirstError()
    let channel = try await MQTTConnection.open(configuration, tls: tls, group: group, errors: errors)
    do {
      try await channel.executeThenClose { inbound, outbound in
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { await self.read(inbound, session: session, errors: errors) }
          do {
            try await self.write(outbound, session: session)
          } catch {
            group.cancelAll()
            throw error
          }
          group.cancelAll()
        }
      }
    } catch {
      // A failed handshake closes the channel, and a write then fails as "closed": the pipeline's error says why.
      let problem = MQTTConnection.classify(error)
      if case .unreachable = problem, let recorded = errors.value { throw MQTTConnection.classify(recorded) }
      throw problem
    }
  }

  /// The reader: records answers and wakes the writer; records why the stream ended.
  private func read(_ inbound: NIOAsyncChannelInboundStream<MQTTInbound>, session: Int, errors: FirstError) async {
    var ending = MQTTError.unreachable("the broker closed the connection")
    do {
      for try await packet in inbound {
        state.withLock { state in
          guard state.session == session else { return }
          handle(packet, in: &state)
        }
        doorbell.ring()
      }
    } catch {
      ending = MQTTConnection.classify(error)
    }
    // A TLS failure may close the channel before its error reaches the stream: the pipeline's own record wins.
    if case .unreachable = ending, let error = errors.value { ending = MQTTConnection.classify(error) }
    state.withLock { state in
      if state.session == session && state.closed == nil { state.closed = ending }
    }
    doorbell.ring()
  }

  private func handle(_ packet: MQTTInbound, in state: inout State) {
    switch packet {
    case .connectAck(_, let code):
      if state.connectAck == nil {
        state.connectAck = code
      } else if state.closed == nil {
        state.closed = .protocolViolation("a second CONNACK")
      }
    case .publishAck(let packetID):
      guard let sent = state.inflight.removeValue(forKey: packetID) else { return }
      state.entries[sent.entry].inflight = nil
      if state.entries[sent.entry].version == sent.version {
        state.entries[sent.entry].delivered = true
        state.statistics.delivered += 1
      }
    case .pingResponse:
      state.pingSentAt = nil
    case .publish(_, _, let qos, let packetID):
      if qos == 1, let packetID {
        state.acknowledgementsToSend.append(packetID)
      } else if qos == 2, state.closed == nil {
        state.closed = .protocolViolation("a QoS 2 PUBLISH, though this client subscribes to nothing")
      }
    }
  }

  private struct Plan {
    var packets: [MQTTPacket] = []
    var closed: MQTTError?
    var done = false
    var oldestInFlight: UInt64?
    var pingSentAt: UInt64?
  }

  /// The writer: CONNECT, CONNACK, then publishing, keep-alive and answer timeouts until finished.
  private func write(_ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, session: Int) async throws(MQTTError) {
    let connect = MQTTConnect(
      clientID: configuration.clientID, keepAliveSeconds: configuration.keepAliveSeconds, cleanSession: true,
      will: configuration.will, username: configuration.username, password: configuration.password)
    try await send(.connect(connect), on: outbound)
    let connectDeadline = monotonicNanoseconds() + UInt64(configuration.connectTimeoutSeconds * 1e9)
    while true {
      // The answer first: a broker that refuses closes the connection right after its CONNACK.
      let (code, closed) = state.withLock { ($0.connectAck, $0.closed) }
      if let code {
        guard code == 0 else { throw .refused(returnCode: code) }
        break
      }
      if let closed { throw closed }
      if Task.isCancelled { return }
      guard monotonicNanoseconds() < connectDeadline else { throw .timeout("CONNECT (no CONNACK)") }
      await doorbell.wait(untilNanoseconds: connectDeadline, on: timers)
    }
    let count = state.withLock { state in
      state.statistics.connections += 1
      state.statistics.connected = true
      return state.entries.count
    }
    logger.info("MQTT broker connected", metadata: [
      "broker": "\(configuration.brokerDescription)", "client_id": "\(configuration.clientID)",
      "topics": "\(count)",
    ])

    let keepAlive = UInt64(configuration.keepAliveSeconds) * 1_000_000_000
    let answerTimeout = UInt64(configuration.answerTimeoutSeconds * 1e9)
    var lastSent = monotonicNanoseconds()
    while !Task.isCancelled {
      let plan = state.withLock { state in nextPlan(&state) }
      if let closed = plan.closed { throw closed }
      for packet in plan.packets {
        try await send(packet, on: outbound)
        lastSent = monotonicNanoseconds()
      }
      if plan.done {
        try await send(.disconnect, on: outbound)
        return
      }
      let now = monotonicNanoseconds()
      if let oldest = plan.oldestInFlight, now - min(now, oldest) >= answerTimeout {
        throw .timeout("a PUBLISH (no PUBACK)")
      }
      var pingSentAt = plan.pingSentAt
      if let ping = pingSentAt, now - min(now, ping) >= answerTimeout { throw .timeout("PINGREQ (no PINGRESP)") }
      if keepAlive > 0, pingSentAt == nil, now - min(now, lastSent) >= keepAlive {
        try await send(.pingRequest, on: outbound)
        lastSent = monotonicNanoseconds()
        pingSentAt = lastSent
        state.withLock { $0.pingSentAt = lastSent }
      }
      var deadline: UInt64?
      func earliest(_ time: UInt64) { deadline = min(deadline ?? time, time) }
      if keepAlive > 0 && pingSentAt == nil { earliest(lastSent + keepAlive) }
      if let oldest = plan.oldestInFlight { earliest(oldest + answerTimeout) }
      if let ping = pingSentAt { earliest(ping + answerTimeout) }
      await doorbell.wait(untilNanoseconds: deadline, on: timers)
    }
  }

  /// What to send now: acknowledgements owed, then each undelivered topic without a PUBLISH in flight.
  private func nextPlan(_ state: inout State) -> Plan {
    var plan = Plan()
    plan.closed = state.closed
    plan.packets = state.acknowledgementsToSend.map { .publishAck(packetID: $0) }
    state.acknowledgementsToSend = []
    let now = monotonicNanoseconds()
    for at in state.entries.indices where state.inflight.count < Self.window {
      let entry = state.entries[at]
      guard !entry.delivered, entry.inflight == nil else { continue }
      var packetID = state.lastPacketID
      repeat { packetID = packetID == UInt16.max ? 1 : packetID + 1 } while state.inflight[packetID] != nil
      state.lastPacketID = packetID
      state.inflight[packetID] = InFlight(entry: at, version: entry.version, sentAt: now)
      state.entries[at].inflight = packetID
      plan.packets.append(.publish(entry.message, packetID: packetID, duplicate: false))
    }
    plan.oldestInFlight = state.inflight.values.map(\.sentAt).min()
    plan.pingSentAt = state.pingSentAt
    plan.done = state.finishing && state.inflight.isEmpty && state.entries.allSatisfy(\.delivered)
    return plan
  }

  private func send(_ packet: MQTTPacket, on outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>)
    async throws(MQTTError)
  {
    do {
      try await outbound.write(ByteBuffer(bytes: packet.encoded()))
    } catch {
      throw MQTTConnection.classify(error)
    }
  }
}
