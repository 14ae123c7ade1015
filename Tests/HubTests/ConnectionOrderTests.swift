import Foundation
import Hub
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// One connection, many requests: keep-alive and pipelined requests each answered in order, framing the hub
/// cannot trust refused with a close, and a client that never reads its answers held back. Real sockets against
/// a real hub on loopback.
@Suite("Requests and answers on one connection", .serialized)
struct ConnectionOrderTests {
  /// Sequential uploads on one keep-alive connection (issue 44: 1 in about 200 was closed mid-request).
  static let sequentialUploads = 2000

  static func upload(_ token: String, _ body: [UInt8], id: String) -> [UInt8] {
    Array(
      ("POST \(SyncAPI.measurementsPath) HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(token)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nX-Request-Id: \(id)\r\n\r\n").utf8)
      + body
  }

  static func get(_ path: String, id: String) -> [UInt8] {
    Array("GET \(path) HTTP/1.1\r\nHost: hub\r\nX-Request-Id: \(id)\r\n\r\n".utf8)
  }

  /// A hub with a device token and one batch of its rows as a JSON body.
  static func hub(_ directory: TemporaryDirectory, limits: ConnectionLimits = ConnectionLimits(), rows: Int = 20)
    async throws -> (hub: LiveHub, token: String, body: [UInt8])
  {
    let hub = LiveHub(storage: try await SyncEndToEndTests.makeStorage(directory), limits: limits)
    try await hub.start()
    let token = try await HubTokens.create(deviceId: "pipe-1", storage: hub.storage, now: Date().timeIntervalSince1970)
    let records = try MeasurementFixtures.records(device: "pipe-1", count: rows)
    let batch = IngestRequest(deviceId: "pipe-1", records: records)
    return (hub, token, Array(try JSONEncoder().encode(batch)))
  }

  @Test("thousands of sequential uploads on one keep-alive connection are each answered, none closed")
  func sequential() async throws {
    let directory = try TemporaryDirectory("keepalive")
    defer { directory.remove() }
    let (hub, token, body) = try await Self.hub(directory)
    let port = hub.port
    let (answered, failure) = try await offload { () -> (Int, String?) in
      let socket = try RawSocket(port: port)
      for index in 0..<Self.sequentialUploads {
        try socket.send(Self.upload(token, body, id: "u\(index)"))
        let (answers, closed) = socket.answers(1, timeout: 15)
        guard let answer = answers.first, answer.status == 200, answer.headers["x-request-id"] == "u\(index)" else {
          let got = answers.first.map { "\($0.status) \($0.body.prefix(200))" } ?? "no answer"
          return (index, "upload \(index): \(got), closed \(closed)")
        }
      }
      return (Self.sequentialUploads, nil)
    }
    await hub.stop()
    #expect(answered == Self.sequentialUploads, "\(failure ?? "")")
    #expect(try await hub.storage.count(deviceId: "pipe-1") == 20)
  }

  @Test("pipelined requests are answered in order, none dropped, and no client deadline runs while the hub answers")
  func pipelined() async throws {
    let directory = try TemporaryDirectory("pipeline")
    defer { directory.remove() }
    // Deadlines of a second; the hub holds /healthz for longer, while the requests after it are all read
    let limits = ConnectionLimits(headerTimeout: 1, bodyTimeout: 1, idleTimeout: 5, sendTimeout: 5)
    let (hub, token, body) = try await Self.hub(directory, limits: limits)
    let port = hub.port
    hub.closeGate(for: SyncAPI.healthPath)
    let opener = Task {
      try await Task.sleep(for: .seconds(2.5))
      hub.openGate()
    }
    let requests = Self.upload(token, body, id: "p0") + Self.get("/openapi.yaml", id: "p1")
      + Self.get(SyncAPI.healthPath, id: "p2") + Self.upload(token, body, id: "p3") + Self.get("/nothing", id: "p4")
    let (answers, closed) = try await offload { () -> ([RawAnswer], Bool) in
      let socket = try RawSocket(port: port)
      try socket.send(requests)
      return socket.answers(5, timeout: 20)
    }
    _ = try await opener.value
    await hub.stop()
    #expect(answers.map(\.status) == [200, 200, 200, 200, 404])
    #expect(answers.map { $0.headers["x-request-id"] ?? "" } == ["p0", "p1", "p2", "p3", "p4"])
    #expect(!closed, "the connection stays open after pipelined requests")
    #expect(!hub.metrics.text.contains("reason=\"header_timeout\""), "no header deadline under a request answered")
  }

  @Test("Transfer-Encoding other than chunked alone is 400 and a close; a request in its body is never run",
        arguments: ["xchunked", "gzip", "identity", "gzip, chunked", "chunked\r\nContent-Length: 5"])
  func untrustedFraming(coding: String) async throws {
    let directory = try TemporaryDirectory("framing")
    defer { directory.remove() }
    let (hub, token, _) = try await Self.hub(directory)
    let port = hub.port
    let smuggled = "0\r\n\r\nGET /openapi.yaml HTTP/1.1\r\nHost: hub\r\n\r\n"
    let (answers, closed) = try await offload { () -> ([RawAnswer], Bool) in
      let socket = try RawSocket(port: port)
      try socket.send(
        "POST \(SyncAPI.measurementsPath) HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(token)\r\n"
          + "Content-Type: application/json\r\nTransfer-Encoding: \(coding)\r\n\r\n" + smuggled)
      return socket.answers(2, timeout: 10)
    }
    await hub.stop()
    #expect(answers.map(\.status) == [400], "\(answers.map { "\($0.status) \($0.body)" })")
    #expect(closed, "the hub closes a connection whose framing it cannot trust")
    #expect(!hub.requestLog.contains { $0.path == "/openapi.yaml" }, "the request in the body must never run")
  }

  @Test("an invalid chunk size is 400, not 500, and closes the connection")
  func invalidChunkSize() async throws {
    let directory = try TemporaryDirectory("chunk")
    defer { directory.remove() }
    let (hub, token, _) = try await Self.hub(directory)
    let port = hub.port
    let (answers, closed) = try await offload { () -> ([RawAnswer], Bool) in
      let socket = try RawSocket(port: port)
      try socket.send(
        "POST \(SyncAPI.measurementsPath) HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(token)\r\n"
          + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"dev\r\nzz\r\nice\r\n0\r\n\r\n")
      let (answers, closed) = socket.answers(1, timeout: 10)
      return (answers, closed || socket.closedByPeer(within: 10))
    }
    await hub.stop()
    #expect(answers.first?.status == 400, "\(answers.map { "\($0.status) \($0.body)" })")
    #expect(closed)
    #expect(try await hub.storage.count(deviceId: "pipe-1") == 0)
  }

  @Test("a client that pipelines and never reads gets a few requests run, and is cut at the send deadline")
  func unreadAnswers() async throws {
    let directory = try TemporaryDirectory("unread")
    defer { directory.remove() }
    let limits = ConnectionLimits(headerTimeout: 30, bodyTimeout: 30, idleTimeout: 30, sendTimeout: 1)
    let (hub, _, _) = try await Self.hub(directory, limits: limits)
    let port = hub.port
    let sent = 300
    let flood = try await offload { () -> RawSocket in
      let socket = try RawSocket(port: port, receiveBuffer: 4096)
      try socket.send((0..<sent).flatMap { Self.get("/openapi.yaml", id: "m\($0)") })
      return socket
    }
    // Answers larger than every buffer on the way (the kernel's grows to a few MiB): 12 pages of 1000 rows, about
    // 6 MB, asked for and never read
    let now = Date().timeIntervalSince1970
    let reader = try await HubTokens.create(kind: .reader, deviceId: nil, storage: hub.storage, now: now).token
    for part in 0..<4 {
      let rows = try MeasurementFixtures.records(device: "pipe-1", count: 500, salt: UInt64(part + 1))
      _ = try await hub.storage.upsert(deviceId: "pipe-1", records: rows, receivedAt: now, outboxPending: nil)
    }
    let stalled = try await offload { () -> RawSocket in
      let socket = try RawSocket(port: port, receiveBuffer: 4096)
      let ask = "GET \(SyncAPI.feedPath)?limit=1000 HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer \(reader)\r\n\r\n"
      try socket.send(String(repeating: ask, count: 12))
      return socket
    }
    // Both are cut without reading a byte: the flood once the few requests it got are answered, the stalled
    // reader at the send deadline (1 s here)
    var open = true
    for _ in 0..<150 where open {
      try await Task.sleep(for: .milliseconds(100))
      let gauge = hub.metrics.text.split(separator: "\n").first { $0.hasPrefix("stressmon_hub_connections ") }
      open = gauge.flatMap { Double($0.split(separator: " ").last ?? "") } != 0
    }
    let handled = hub.requestLog.filter { $0.path == "/openapi.yaml" }.count
    let metrics = hub.metrics.text
    await hub.stop()
    withExtendedLifetime((flood, stalled)) {}
    #expect(!open, "clients that never read are cut")
    #expect(metrics.contains("reason=\"send_timeout\""), "the stalled reader is cut at the send deadline")
    // One read brought every request of the flood; the hub took at most 16 ahead of their answers
    #expect(handled <= ConnectionLimits.maxPipelined, "\(handled) of \(sent) pipelined requests were run")
  }
}
