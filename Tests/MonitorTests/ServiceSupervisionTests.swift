import Foundation
import Synchronization
import Testing
import TestSupport

/// `stressmon run` under systemd, with systemd played by the test: the notification socket ($NOTIFY_SOCKET, a
/// datagram socket the test binds), the watchdog interval ($WATCHDOG_USEC) and the journal stream
/// ($JOURNAL_STREAM). The real binary on the simulated board.
@Suite("systemd: READY, the watchdog, SIGHUP, journal priorities", .serialized)
struct ServiceSupervisionTests {
  /// systemd's interval between heartbeats for the test (short, so the test is short).
  static let watchdogSeconds = 3.0

  @Test("READY=1 once samples flow, WATCHDOG=1 at least every WATCHDOG_USEC/2, none once the sensor hangs")
  func readyAndWatchdog() async throws {
    // Given systemd's socket and a simulated board whose emulated sensor stops answering after 6 s
    let directory = try TemporaryDirectory("notify")
    defer { directory.remove() }
    let socket = try NotifySocket(path: directory.file("notify"))
    defer { socket.close() }
    let board = try Self.simBoard(in: directory, extraSensorKeys: "stall_after_s = 6")
    let process = try LiveProcess(
      ["run", "--board", board, "--db", directory.file("run.db"), "--json", "--device", "watchdog"],
      workingDirectory: directory.path,
      environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "\(Int(Self.watchdogSeconds * 1e6))"])
    defer { _ = process.waitForExit(timeout: 0) }

    // When it runs until its sensor hangs, and on until no heartbeat has come for longer than a watchdog interval
    let ready = await Self.poll(timeout: 60) { socket.received.contains { $0.text.contains("READY=1") } }
    #expect(ready, "no READY=1: \(process.stderr)")
    let silent = await Self.poll(timeout: 60) {
      guard let last = socket.received.last else { return false }
      return Date().timeIntervalSince(last.time) > Self.watchdogSeconds
    }
    let messages = socket.received
    let stillRunning = process.isRunning
    process.send(SIGKILL)

    // Then READY=1 came first (with MAINPID and a STATUS line), and once the first block had been read
    let first = try #require(messages.first)
    #expect(first.text.contains("READY=1") && first.text.contains("MAINPID=\(process.pid)"))
    #expect(first.text.contains("STATUS=measuring"))
    // And heartbeats followed at least every WATCHDOG_USEC/2 while samples came (6 s of the sensor's clock)
    let beats = messages.filter { $0.text == "WATCHDOG=1" }.map(\.time)
    let times = [first.time] + beats
    #expect(times.last!.timeIntervalSince(first.time) > 4, "\(messages.map(\.text))")
    let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
    #expect(gaps.allSatisfy { $0 <= Self.watchdogSeconds / 2 }, "gaps \(gaps)")
    // And then none for more than a whole WATCHDOG_USEC (systemd would kill and restart it), while the process
    // was still there: hung in its sensor transfer, not stopped
    #expect(silent, "heartbeats never stopped: \(messages.count) messages")
    #expect(stillRunning)
    #expect(process.events.contains { $0["event"] as? String == "started" })
    #expect(!process.events.contains { $0["event"] as? String == "stopped" })
  }

  @Test("SIGHUP reads the configuration again, says what changed, keeps running; journal lines carry <N>")
  func hangUpChecksTheConfiguration() async throws {
    let directory = try TemporaryDirectory("sighup")
    defer { directory.remove() }
    let board = try Self.simBoard(in: directory)
    let config = try directory.write("run.toml", Self.config(db: directory.file("run.db"), flush: 2))
    let process = try LiveProcess(
      ["run", "--config", config, "--board", board, "--json"], workingDirectory: directory.path,
      journalStream: true)
    defer { _ = process.waitForExit(timeout: 0) }
    #expect(await Self.poll(timeout: 30) { process.output.contains { $0.contains("\"started\"") } })

    // When the file is broken and SIGHUP arrives, the error is logged at priority 3 and the daemon runs on
    _ = try directory.write("run.toml", "[store]\nflush_s = \"soon\"\n")
    process.send(SIGHUP)
    let broken = await Self.waitForLine(process, containing: "SIGHUP: the configuration has an error")
    #expect(broken?.hasPrefix("<3>stressmon.run: ") == true, "\(process.stderr)")
    #expect(broken?.contains("run.toml:2") == true)
    // When it is valid again with a different [store], a notice (priority 5) names the section
    _ = try directory.write("run.toml", Self.config(db: directory.file("run.db"), flush: 5))
    process.send(SIGHUP)
    let changed = await Self.waitForLine(process, containing: "SIGHUP: configuration read again")
    #expect(changed?.hasPrefix("<5>stressmon.run: ") == true, "\(process.stderr)")
    #expect(changed?.contains("[store] changed") == true)
    // Then it was never stopped, and SIGTERM still ends it cleanly
    #expect(process.isRunning)
    process.send(SIGTERM)
    _ = await Self.poll(timeout: 30) { !process.isRunning }
    #expect(process.waitForExit(timeout: 1) == 0)
    #expect(process.events.last?["event"] as? String == "stopped")
  }

  // MARK: - Helpers

  /// The simulated board in `directory` (its recording found from the repository), with extra `[sensor]` keys.
  static func simBoard(in directory: TemporaryDirectory, extraSensorKeys: String = "") throws -> String {
    let sim = try String(contentsOfFile: SharedData.repositoryRoot + "/boards/sim.toml", encoding: .utf8)
    return try directory.write("sim.toml", sim
      .replacingOccurrences(of: "\"../demo/", with: "\"\(SharedData.repositoryRoot)/demo/")
      .replacingOccurrences(of: "[sensor]\n", with: "[sensor]\n\(extraSensorKeys)\n"))
  }

  static func config(db: String, flush: Int) -> String {
    "[device]\nid = \"sighup\"\n[store]\ndb = \"\(db)\"\nflush_s = \(flush)\n"
  }

  static func waitForLine(_ process: LiveProcess, containing text: String, timeout: Double = 20) async -> String? {
    let line = { process.stderr.split(separator: "\n").first { $0.contains(text) }.map(String.init) }
    _ = await poll(timeout: timeout) { line() != nil }
    return line()
  }

  /// Waits until `condition` holds (true) or `timeout` seconds pass (false), without holding a thread: the
  /// cooperative pool has two threads on this machine, and other suites need them meanwhile.
  static func poll(timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
  }
}

/// A datagram socket bound to a path, as systemd's notification socket is; a thread records what arrives.
final class NotifySocket: Sendable {
  struct Message: Sendable {
    var time: Date
    var text: String
  }

  let path: String
  private let descriptor: Int32
  private let messages = Mutex<[Message]>([])
  private let closed = Mutex(false)

  init(path: String) throws {
    self.path = path
    descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard descriptor >= 0, bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let reader = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !closed.withLock({ $0 }) {
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
          let text = String(decoding: buffer[0..<count], as: UTF8.self)
          messages.withLock { $0.append(Message(time: Date(), text: text)) }
        }
      }
      Glibc.close(descriptor)
    }
    reader.start()
  }

  var received: [Message] { messages.withLock { $0 } }

  /// Stops the reader (within its 100 ms receive timeout; it closes the socket).
  func close() {
    closed.withLock { $0 = true }
  }
}
