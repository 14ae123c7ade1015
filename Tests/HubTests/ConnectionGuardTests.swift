import Foundation
import Hub
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The hub against clients that hold connections: half-open sockets, a flood past the cap, idle keep-alives,
/// trickled and oversized bodies. Real sockets against a real hub on loopback, with small limits.
@Suite("Connections held by hostile clients", .serialized)
struct ConnectionGuardTests {
  static let limits = ConnectionLimits(maxConnections: 40, headerTimeout: 1, bodyTimeout: 1, idleTimeout: 1)

  static func hub(_ directory: TemporaryDirectory, limits: ConnectionLimits = limits) async throws -> LiveHub {
    let hub = LiveHub(storage: try await SyncEndToEndTests.makeStorage(directory), limits: limits)
    try await hub.start()
    return hub
  }

  @Test("a slowloris is cut at the header deadline, and /healthz answers while it lasts")
  func slowloris() async throws {
    let directory = try TemporaryDirectory("guard")
    defer { directory.remove() }
    let hub = try await Self.hub(directory)
    let port = hub.port
    // Given 30 sockets that each sent half a request's headers
    let attackers = try await offload {
      try (0..<30).map { _ in
        let socket = try RawSocket(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: hub\r\nX-Slow: ")
        return socket
      }
    }
    // Then a real client is answered meanwhile
    let health = try await offload { () -> Int? in
      let socket = try RawSocket(port: port)
      try socket.send("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
      return socket.status(timeout: 10)
    }
    #expect(health == 200)
    // and every half-open socket is closed by the hub (deadline 1 s; allowed 15 s on a loaded machine)
    let closed = try await offload { attackers.map { $0.closedByPeer(within: 15) } }
    #expect(closed.allSatisfy { $0 }, "\(closed.filter { !$0 }.count) of 30 half-open sockets still open")
    await hub.stop()
    #expect(hub.metrics.text.contains("stressmon_hub_connections_closed_total{reason=\"header_timeout\"}"))
  }

  @Test("past the connection cap a new connection gets a 503 with Retry-After at once, and is closed")
  func connectionCap() async throws {
    let directory = try TemporaryDirectory("guard")
    defer { directory.remove() }
    let hub = try await Self.hub(directory, limits: ConnectionLimits(maxConnections: 10, headerTimeout: 30))
    let port = hub.port
    let (held, answer, closed) = try await offload { () -> ([RawSocket], String, Bool) in
      let held = try (0..<10).map { _ in try RawSocket(port: port) }
      Thread.sleep(forTimeInterval: 0.3)  // let the hub accept them (it counts on accept, not on request)
      let extra = try RawSocket(port: port)
      try extra.send("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
      let (text, closed) = extra.read(timeout: 10) { $0.contains("}") }
      return (held, text, closed || extra.closedByPeer(within: 10))
    }
    #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(200))")
    #expect(answer.lowercased().contains("retry-after: 5") && answer.contains("over_capacity"))
    #expect(closed)
    // Once they go, the hub answers again: as soon as it has seen them close (0.3 s on a quiet machine; asked
    // again every 0.2 s for up to 10 s, as the event loop may be late on a loaded one)
    let after = try await offload { () -> Int? in
      held.forEach { shutdown($0.descriptor, Int32(SHUT_RDWR)) }
      var status: Int?
      for _ in 0..<50 {
        Thread.sleep(forTimeInterval: 0.2)
        let socket = try RawSocket(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
        status = socket.status(timeout: 10)
        if status == 200 { break }
      }
      return status
    }
    #expect(after == 200)
    await hub.stop()
  }

  @Test("an idle keep-alive connection is closed; a trickled body is cut at the body deadline")
  func idleAndTrickle() async throws {
    let directory = try TemporaryDirectory("guard")
    defer { directory.remove() }
    let hub = try await Self.hub(directory)
    let port = hub.port
    let token = try await HubTokens.create(deviceId: "slow-1", storage: hub.storage, now: Date().timeIntervalSince1970)
    let (status, idleClosed, trickleClosed) = try await offload { () -> (Int?, Bool, Bool) in
      let idle = try RawSocket(port: port)
      try idle.send("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
      let status = idle.status(timeout: 10)
      let trickle = try RawSocket(port: port)
      try trickle.send(
        "POST /v1/measurements HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(token)\r\n"
          + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"device_id\":")
      return (status, idle.closedByPeer(within: 15), trickle.closedByPeer(within: 15))
    }
    #expect(status == 200)
    #expect(idleClosed, "an idle keep-alive connection must be closed after the idle timeout")
    #expect(trickleClosed, "a body that stops arriving must be cut")
    await hub.stop()
  }

  @Test("a chunked body over the limit is 413 payload_too_large, not 500, and the rest is not read")
  func chunkedOversize() async throws {
    let directory = try TemporaryDirectory("guard")
    defer { directory.remove() }
    let hub = try await Self.hub(directory, limits: ConnectionLimits(bodyTimeout: 30))
    let port = hub.port
    let token = try await HubTokens.create(deviceId: "big-1", storage: hub.storage, now: Date().timeIntervalSince1970)
    let answer = try await offload { () -> (String, Bool) in
      let socket = try RawSocket(port: port)
      try socket.send(
        "POST /v1/measurements HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(token)\r\n"
          + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
      let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 0x10000) + Array("\r\n".utf8)
      // 3 MiB in 64 KiB chunks, past the 2 MiB limit; the hub may answer and close before the end
      for _ in 0..<48 { try? socket.send(chunk) }
      let (text, closed) = socket.read(timeout: 15) { $0.contains("}") }
      return (text, closed || socket.closedByPeer(within: 15))
    }
    #expect(answer.0.hasPrefix("HTTP/1.1 413"), "\(answer.0.prefix(300))")
    #expect(answer.0.contains("payload_too_large"))
    #expect(answer.1, "the hub closes the connection instead of reading the rest of the body")
    #expect(try await hub.storage.count(deviceId: "big-1") == 0)
    await hub.stop()
  }
}
