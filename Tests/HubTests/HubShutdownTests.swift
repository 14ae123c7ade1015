import Foundation
import Hub
import Synchronization
import TestSupport
import Testing

/// Stopping the live hub the tests run against: while clients keep connecting, and with a request in flight.
@Suite("Stopping the live hub", .serialized)
struct HubShutdownTests {
  /// Client threads that connect over and over, and stop/start rounds: enough that cancelling the server task (as
  /// `LiveHub.stop` once did) trapped in 10 runs of 10 on a 2-core machine; half a second alone. More for a soak run:
  /// `STRESSMON_SHUTDOWN_CLIENTS=8 STRESSMON_SHUTDOWN_ROUNDS=500 swift test --filter HubShutdownTests`.
  static let environment = ProcessInfo.processInfo.environment
  static let clients = Int(environment["STRESSMON_SHUTDOWN_CLIENTS"] ?? "") ?? 2
  static let rounds = Int(environment["STRESSMON_SHUTDOWN_ROUNDS"] ?? "") ?? 20

  @Test("stopped and restarted while clients keep connecting, the hub never drops an accepted connection unfinished")
  func restartUnderConnections() async throws {
    let (hub, directory) = try await Self.startedHub()
    defer { directory.remove() }
    let port = hub.port
    // Given clients that connect, send a request and hang up, as fast as they can while the hub listens
    let running = RunningFlag()
    let connected = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<Self.clients {
        group.addTask {
          try await offload {
            var count = 0
            while running.value.load(ordering: .relaxed) {
              if Self.knock(port: port) {
                count += 1
              } else {
                // Refused: the hub is between a stop and a start. Retrying at once only burns the CPU the restart
                // needs, which makes the gap longer: in the full suite the 20 restarts took 20-45 s, not 0.5 s, and
                // the two threads spun through them (98% of 240,000 attempts refused), starving the tests beside.
                usleep(1_000)
              }
            }
            return count
          }
        }
      }
      // When the hub goes down and comes back again and again meanwhile (a connection accepted but not yet
      // served when the server task was cancelled trapped in NIO: apple/swift-nio#3481)
      do {
        for _ in 0..<Self.rounds {
          try await Task.sleep(for: .milliseconds(Int.random(in: 0...10)))
          try await hub.restart()
        }
      } catch {
        running.value.store(false, ordering: .relaxed)  // the group waits for its clients before it throws
        throw error
      }
      running.value.store(false, ordering: .relaxed)
      return try await group.reduce(0, +)
    }
    await hub.stop()
    // Then the process is still here, and the hub served between the restarts
    #expect(connected > 0)
  }

  @Test("stop cuts a request in flight instead of waiting for its answer")
  func stopCutsRequestInFlight() async throws {
    let (hub, directory) = try await Self.startedHub()
    defer { directory.remove() }
    // Given a request the hub holds and will not answer on its own
    hub.closeGate(for: "/healthz")
    let socket = try await offload { try RawSocket(port: hub.port) }
    try socket.send("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
    let deadline = Date().addingTimeInterval(10)
    while !hub.requestLog.contains(where: { $0.path == "/healthz" }), Date() < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(hub.requestLog.contains { $0.path == "/healthz" })

    // When the hub stops
    let started = Date()
    await hub.stop()

    // Then it did not wait for the held request (a graceful shutdown alone would, for ever), and the client is
    // not answered 200
    #expect(Date().timeIntervalSince(started) < 5)
    let status = try await offload { socket.status(timeout: 5) }
    #expect(status != 200)
  }

  /// A live hub on its own storage, started; the caller removes the directory (removed here if the start fails).
  static func startedHub() async throws -> (LiveHub, TemporaryDirectory) {
    let directory = try TemporaryDirectory("shutdown")
    do {
      let hub = LiveHub(storage: try await SyncEndToEndTests.makeStorage(directory))
      try await hub.start()
      return (hub, directory)
    } catch {
      directory.remove()
      throw error
    }
  }

  /// Connects (giving up after 50 ms: a full backlog must not block the client), sends a request, hangs up.
  /// Whether it connected.
  static func knock(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    // Hang up with a reset: no TIME_WAIT holding the local port, which another test's hub may want to bind again
    var abortive = linger(l_onoff: 1, l_linger: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
    guard RawSocket.connectLoopback(descriptor, port: port) else { return false }
    let request = Array("GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    return true
  }
}

/// Shared by the test and its client threads.
private final class RunningFlag: Sendable {
  let value = Atomic<Bool>(true)
}
