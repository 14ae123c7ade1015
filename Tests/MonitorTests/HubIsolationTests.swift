import Foundation
import Monitor
import Store
import Testing
import TestSupport

/// A hub that accepts connections and never answers (a hung network) must not hold up sampling: measuring goes on
/// while an upload hangs. (scripts/bench-daemon also runs the daemon in real time with such a hub: no sample lost.)
@Suite("A hung hub does not delay sampling")
struct HubIsolationTests {
  @Test("with an upload hanging for its 30 s timeout, ten minutes of data are measured and stored meanwhile")
  func hungHubDoesNotDelaySampling() async throws {
    // Given a store with rows waiting for upload
    var run = try SimulatedRun("hung-hub")
    defer { run.directory.remove() }
    let (first, _) = try await run.run(duration: 90)
    #expect(first.storedMeasurements == 4)
    // and a "hub" whose port accepts connections into its backlog but never answers, with a token for it
    let listener = try SilentListener()
    defer { listener.close() }
    run.configuration.sync.hub = "http://127.0.0.1:\(listener.port)"
    run.configuration.sync.insecureHTTP = true
    run.configuration.sync.tokenFile = try run.directory.writePrivate("token", "test-token\n")

    // When the daemon runs again, at --speed max, starting with an upload of those rows (its first request hangs)
    let started = ContinuousClock.now
    let (summary, log) = try await run.run(duration: 600)
    let elapsed = ContinuousClock.now - started

    // Then all ten minutes were measured and stored long before the request could have timed out
    #expect(summary.windows == 55)
    #expect(summary.gaps == 0 && summary.lostSamples == 0)
    #expect(summary.storedMeasurements == 55)
    #expect(log.windows.count == 55)
    #expect(elapsed < .seconds(20), "\(elapsed)")
    // and the upload really was hanging on the silent hub meanwhile; the rows are still waiting
    #expect(listener.pendingConnections() >= 1)
    let store = try MeasurementStore(path: run.configuration.store.database, options: .reading)
    defer { store.close() }
    #expect(try store.outboxStatus().pending == 59)
  }
}

/// A TCP socket on 127.0.0.1 that listens but never accepts: connections complete in the kernel's backlog and
/// then nothing is ever answered.
final class SilentListener {
  let fd: Int32
  let port: Int

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.fd = fd
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  /// Connections waiting in the backlog (accepted here, non-blocking, to count them).
  func pendingConnections() -> Int {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var count = 0
    while true {
      let client = accept(fd, nil, nil)
      if client < 0 { break }
      count += 1
      Glibc.close(client)
    }
    return count
  }

  func close() { Glibc.close(fd) }
}
