import Foundation
import Hub
import SQLite
import Store
import Sync
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// `stressmon sync --once` always ends, and says why in one line (issue 43): against a hub that is down, one that
/// trickles its answer, one that speaks plain HTTP on an https:// URL, and a `stressmon-hub` process killed with
/// SIGKILL in the middle of an upload and started again.
@Suite("stressmon sync always ends, with one clean line", .serialized)
struct SyncBoundsTests {
  /// A device store with `count` rows of device "cli-desk" waiting for upload.
  static func deviceStore(_ directory: TemporaryDirectory, count: Int) throws -> String {
    let path = directory.file("device.db")
    let store = try MeasurementStore(path: path)
    let rows = try MeasurementFixtures.records(device: "cli-desk", count: count)
    for start in stride(from: 0, to: rows.count, by: 500) {
      try store.write(Array(rows[start..<min(start + 500, rows.count)]))
    }
    store.close()
    return path
  }

  static func elapsed(since start: Date) -> Double { Date().timeIntervalSince(start) }

  static func oneCleanLine(_ text: String) -> Bool {
    let lines = text.split(separator: "\n").filter { $0.hasPrefix("stressmon:") }
    return lines.count == 1 && !text.contains("errno") && !text.contains("error set") && !text.contains("/.build/")
      && !text.contains("BoringSSL")
  }

  @Test("a hub that is down: each refused connection fails at once, all attempts within the deadline, exit 69")
  func downHub() async throws {
    let directory = try TemporaryDirectory("sync-bounds")
    defer { directory.remove() }
    let db = try Self.deviceStore(directory, count: 20)
    let token = try directory.writePrivate("token", String(repeating: "b", count: 64))
    // Bound but not listening: a connect is refused, and no other test's server can take the port meanwhile.
    let port = try FreePort.HeldPort()
    defer { port.release() }
    // The CLI's own clock decides, not this test's wall clock (a loaded machine can hold a child process or this
    // task for a long time): a connect that waited for its timeout (30 s here, more than the 20 s deadline) would
    // end the run at the deadline after one attempt; connects that fail at once make all seven attempts, quick
    // backoff between them, well inside it.
    let result = try await runCLI([
      "sync", "--once", "--db", db, "--hub", "http://127.0.0.1:\(port.number)", "--insecure-http", "--token-file",
      token, "--connect-timeout", "30", "--timeout", "30", "--deadline", "20", "--backoff-base", "0.05",
      "--backoff-cap", "0.2",
    ])
    #expect(result.status == 69, "\(result.stderr)")
    #expect(result.stderr.contains("connection refused by 127.0.0.1:\(port.number)"), "\(result.stderr)")
    #expect(result.stderr.contains("after 7 attempts"), "\(result.stderr)")
    #expect(!result.stderr.contains("deadline") && !result.stderr.contains("timed out"), "\(result.stderr)")
    #expect(Self.oneCleanLine(result.stderr), "\(result.stderr)")
  }

  @Test("a hub that sends its head and then a byte a second: --timeout bounds each attempt, --deadline the run")
  func tricklingHub() async throws {
    let directory = try TemporaryDirectory("sync-bounds")
    defer { directory.remove() }
    let db = try Self.deviceStore(directory, count: 20)
    let token = try directory.writePrivate("token", String(repeating: "b", count: 64))
    let server = try TricklingServer(bodyBytes: 60)
    server.start()
    defer { server.stop() }
    // Timed on the thread that waits for the child, so a busy test pool resuming this task late does not count.
    let (result, seconds) = try await offload { () -> (CLIRunner.Result, Double) in
      let start = Date()
      let result = try CLIRunner.run([
        "sync", "--once", "--db", db, "--hub", "http://127.0.0.1:\(server.port)", "--insecure-http", "--token-file",
        token, "--timeout", "2", "--deadline", "7", "--backoff-base", "0.05", "--backoff-cap", "0.2",
      ])
      return (result, Date().timeIntervalSince(start))
    }
    #expect(result.status == 69, "\(result.stderr)")
    // Before: the first attempt alone lasted as long as the hub kept trickling (60 s here), whatever --timeout
    // said; now the run ends at its 7 s deadline. The bound leaves a loaded machine most of the difference.
    #expect(seconds < 45, "took \(seconds) s")
    #expect(server.connections >= 2, "a retry after the first timeout")
    #expect(result.stderr.contains("sent no complete answer within"), "\(result.stderr)")
    #expect(Self.oneCleanLine(result.stderr), "\(result.stderr)")
  }

  @Test("a plain-HTTP hub reached through https://: one line that says to use http:// with --insecure-http")
  func plainHubOverHTTPS() async throws {
    let directory = try TemporaryDirectory("sync-bounds")
    defer { directory.remove() }
    let (storage, token) = try await SyncCommandTests.hubStorage(directory)
    let db = try Self.deviceStore(directory, count: 5)
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let https = hub.baseURL.replacingOccurrences(of: "http://", with: "https://")
    let result = try await runCLI(["sync", "--once", "--db", db, "--hub", https, "--token-file", token])
    await hub.stop()
    #expect(result.status == 69, "\(result.stderr)")
    #expect(result.stderr.contains("answers plain HTTP, not HTTPS"), "\(result.stderr)")
    #expect(result.stderr.contains("--insecure-http"))
    #expect(!result.stderr.contains("--ca-file"), "the CA is not the problem: \(result.stderr)")
    #expect(Self.oneCleanLine(result.stderr), "\(result.stderr)")
  }

  @Test("the hub SIGKILLed mid-upload and restarted: the attempt in flight fails, the run goes on and drains")
  func hubKilledMidUpload() async throws {
    let directory = try TemporaryDirectory("sync-bounds")
    defer { directory.remove() }
    let hubDB = directory.file("hub.sqlite")
    let created = try await offload {
      try CLIRunner.run(["token", "create", "--device", "cli-desk", "--db", hubDB], product: "stressmon-hub")
    }
    try #require(created.status == 0, "\(created.stderr)")
    let token = try directory.writePrivate("token", created.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    let rows = 20_000
    let db = try Self.deviceStore(directory, count: rows)
    let port = try FreePort.take()
    // Started off the test pool: waiting for the hub to answer blocks, and the pool has one thread per core.
    let firstLog = directory.file("hub-1.log")
    var hub = try await offload { try HubProcess(database: hubDB, port: port, log: firstLog) }
    let sync = Process()
    sync.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon")
    sync.arguments = [
      "sync", "--once", "--db", db, "--hub", "http://127.0.0.1:\(port)", "--insecure-http", "--token-file", token,
      "--backoff-base", "1", "--backoff-cap", "4",
    ]
    let errors = directory.file("sync.err")
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    sync.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
    sync.standardOutput = FileHandle.nullDevice
    let start = Date()
    try sync.run()
    // Once the upload is under way (the hub holds some rows but not all), the hub dies with SIGKILL.
    var landed = 0
    while landed == 0 && Self.elapsed(since: start) < 20 {
      try await Task.sleep(for: .milliseconds(20))
      landed = try Self.hubCount(hubDB)
    }
    hub.kill()
    #expect(landed > 0 && landed < rows, "the kill did not land mid-upload (\(landed) rows on the hub)")
    try await Task.sleep(for: .milliseconds(500))
    let secondLog = directory.file("hub-2.log")
    hub = try await offload { try HubProcess(database: hubDB, port: port, log: secondLog) }
    defer { hub.kill() }
    let status = try await offload { () -> Int32 in
      sync.waitUntilExit()
      return sync.terminationStatus
    }
    let seconds = Self.elapsed(since: start)
    let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    // Exit 0 means drained within the CLI's own deadline (a minute by default): the killed attempt did not hang.
    #expect(status == 0, "\(stderr)")
    #expect(try Self.hubCount(hubDB) == rows, "every row on the hub")
    print("sync --once with the hub SIGKILLed mid-upload (\(landed) of \(rows) rows in) and restarted 0.5 s later: "
      + "exit \(status) after \(String(format: "%.1f", seconds)) s")
  }

  @Test("rows stamped ahead of the hub's clock: quarantined, exit 65, and every time printed as a date")
  func futureRowsQuarantined() async throws {
    let directory = try TemporaryDirectory("sync-bounds")
    defer { directory.remove() }
    let (storage, token) = try await SyncCommandTests.hubStorage(directory)
    var rows = try MeasurementFixtures.records(device: "cli-desk", count: 6)
    let now = Date().timeIntervalSince1970
    for index in 3..<6 {
      // What a replay stamped from "now" used to store: windows up to minutes ahead of the clock.
      let shift = now + 600 + Double(index) * 10 - rows[index].windowEnd
      rows[index].windowStart += shift
      rows[index].windowEnd += shift
      rows[index].modifiedAt += shift
    }
    let path = directory.file("device.db")
    let store = try MeasurementStore(path: path)
    try store.write(rows)
    store.close()
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let result = try await runCLI([
      "sync", "--once", "--db", path, "--hub", hub.baseURL, "--insecure-http", "--token-file", token,
    ])
    await hub.stop()
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stdout.contains("Uploaded 3 rows") && result.stdout.contains("3 quarantined"), "\(result.stdout)")
    #expect(Self.oneCleanLine(result.stderr), "\(result.stderr)")
    // The hub's reason names the times as dates, not as seconds since 1970.
    let status = try await runCLI(["sync", "--status", "--db", path])
    #expect(status.status == 0)
    #expect(status.stdout.contains("s ahead of the hub's clock"), "\(status.stdout)")
    let date = #"window_(end|start) 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ"#
    #expect(status.stdout.range(of: date, options: .regularExpression) != nil)
    let epoch = #"\d{10}\.\d"#
    #expect(status.stdout.range(of: epoch, options: .regularExpression) == nil, "an epoch number: \(status.stdout)")
  }

  /// Rows the hub's file holds (a reader of its own: SQLite's WAL lets it read while the hub writes).
  static func hubCount(_ path: String) throws -> Int {
    let connection = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeoutMs: 2_000)
    defer { connection.close() }
    return Int(try connection.scalarInt("SELECT count(*) FROM measurements") ?? 0)
  }
}

/// `stressmon-hub serve` as a process of its own, ready once it answers /healthz (blocking: start it through
/// `offload`).
struct HubProcess: Sendable {
  let process: Process

  init(database: String, port: Int, log: String) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon-hub")
    process.arguments = ["serve", "--db", database, "--port", String(port)]
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let socket = try? RawSocket(port: port) {
        try? socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        if socket.read(timeout: 2).text.contains(" 200 ") { return }
      }
      usleep(50_000)
    }
    throw RawSocketError("stressmon-hub did not come up on port \(port); see \(log)")
  }

  func kill() {
    guard process.isRunning else { return }
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

/// Ports on 127.0.0.1 for the tests.
enum FreePort {
  /// A port that was free a moment ago (bound to port 0, then closed), for a server started next.
  static func take() throws -> Int {
    let held = try HeldPort()
    held.release()
    return held.number
  }

  /// A port kept bound without listening: a connect to it is refused at once, and no other server can bind it
  /// until `release()`.
  final class HeldPort: Sendable {
    let number: Int
    private let descriptor: Int32

    init() throws {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      guard bound == 0 else {
        close(fd)
        throw RawSocketError("bind: errno \(errno)")
      }
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
      }
      descriptor = fd
      number = Int(UInt16(bigEndian: address.sin_port))
    }

    func release() { close(descriptor) }
  }
}

/// An HTTP "hub" that reads each request, answers `200` with a Content-Length of `bodyBytes`, and then sends the
/// body one byte a second (a stalled proxy, a hub in trouble).
final class TricklingServer: @unchecked Sendable {
  let port: Int
  private let listener: Int32
  private let bodyBytes: Int
  private let lock = NSLock()
  private var accepted = 0
  private var stopped = false

  init(bodyBytes: Int) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 16) == 0 else { throw RawSocketError("listen: errno \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    listener = fd
    self.bodyBytes = bodyBytes
  }

  /// Accepts connections on a thread of its own, each served on another.
  func start() {
    Thread.detachNewThread { [self] in
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        lock.withLock { accepted += 1 }
        Thread.detachNewThread { [self] in serve(client, bodyBytes: bodyBytes) }
      }
    }
  }

  var connections: Int { lock.withLock { accepted } }

  func stop() {
    lock.withLock { stopped = true }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  private func serve(_ client: Int32, bodyBytes: Int) {
    defer { close(client) }
    var request: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    // The head, then as many body bytes as it announces.
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return }
      request += buffer[0..<count]
      let text = String(decoding: request, as: UTF8.self)
      guard let end = text.range(of: "\r\n\r\n") else { continue }
      let head = text[..<end.lowerBound].lowercased()
      let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
      if request.count - text[..<end.upperBound].utf8.count >= length { break }
    }
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(bodyBytes)\r\n\r\n"
    guard send(client, head, head.utf8.count, Int32(MSG_NOSIGNAL)) > 0 else { return }
    for _ in 0..<bodyBytes {
      sleep(1)
      if lock.withLock({ stopped }) { return }
      guard send(client, " ", 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
    }
  }
}
