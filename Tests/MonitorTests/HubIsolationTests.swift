import Foundation
import Monitor
import Testing
import TestSupport

/// A hub that accepts connections and never answers (a hung network) must not delay sampling: the sensor's FIFO
/// is read on time (no overflow gaps) and results keep their cadence while the upload hangs.
@Suite("A hung hub does not delay sampling")
struct HubIsolationTests {
  @Test("with the upload hanging, the emulated sensor loses no sample and windows keep their 10 s cadence")
  func hungHubDoesNotDelaySampling() async throws {
    // Given a "hub" whose port accepts connections into its backlog but never answers, and a token for it
    let listener = try SilentListener()
    defer { listener.close() }
    var run = try SimulatedRun("hung-hub")
    defer { run.directory.remove() }
    run.configuration.sync.hub = "http://127.0.0.1:\(listener.port)"
    run.configuration.sync.insecureHTTP = true
    run.configuration.sync.intervalSeconds = 0.5
    run.configuration.sync.tokenFile = try run.directory.write("token", "test-token\n")

    // When the simulated board runs paced at 10× (the FIFO overflows after 0.32 s of data = 32 ms here)
    let (summary, log) = try await run.run(speed: .times(10), duration: 100)

    // Then no sample was lost and every window came, on cadence (10 s of data = 0.5 s here)
    #expect(summary.gaps == 0)
    #expect(summary.lostSamples == 0)
    #expect(summary.windows == 5)
    let times = log.all.compactMap { event -> Double? in
      if case .window(_, _, let at) = event { at.processMilliseconds } else { nil }
    }
    let spacing = zip(times.dropFirst(), times).map { $0 - $1 }
    #expect(spacing.allSatisfy { $0 > 500 && $0 < 1_500 }, "\(spacing)")
    #expect(summary.wallSeconds < 100.0 / 10 + 2)
    // and the upload really was hanging on the silent hub meanwhile
    #expect(listener.pendingConnections() >= 1)
    #expect(summary.storedMeasurements == 5)
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
