import CommandSupport
import Foundation
import Hub
import Platform
import Sync
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// What a newcomer meets first: the `--help` "First run" run as written, the kiosk URL, and every error as one
/// line with advice and a sysexits code. The real binaries.
@Suite("stressmon-hub for a newcomer", .serialized)
struct HubFirstRunTests {
  static func hub(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil)
    async throws -> CLIRunner.Result
  {
    try await offload {
      try CLIRunner.run(arguments, product: "stressmon-hub", environment: environment, workingDirectory: directory)
    }
  }

  /// An environment with no hub settings of the caller's, and HOME in `home`.
  static func clean(home: String) -> [String: String] {
    [
      "HOME": home, "STRESSMON_HUB_DB": "", "STRESSMON_HUB_POSTGRES": "", "STATE_DIRECTORY": "", "XDG_STATE_HOME": "",
      "STRESSMON_HUB_HOST": "", "STRESSMON_HUB_PORT": "", "STRESSMON_HUB_TLS_CERT": "", "STRESSMON_HUB_TLS_KEY": "",
    ]
  }

  static func freePort() throws -> Int {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(probe) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(probe, pointer, length) == 0 ? getsockname(probe, pointer, &length) : -1
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  @Test("the First run of --help works as written: tokens, serve, a device's sync, the fleet page")
  func firstRun() async throws {
    let directory = try TemporaryDirectory("first-run")
    defer { directory.remove() }
    let home = directory.file("home")
    let environment = Self.clean(home: home)
    let help = try await Self.hub(["--help"], environment: environment)
    #expect(help.status == 0)
    // The commands of the "First run" paragraph, as a person would copy them off an 80-column terminal
    let paragraph = help.stdout.components(separatedBy: "First run").dropFirst().first ?? ""
    let port = try Self.freePort()
    let commands = paragraph.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
      .prefix { !$0.contains("The fleet page") }
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("stressmon-hub ") || $0.hasPrefix("stressmon ") }
      .map { line in
        line.split(separator: " ").map {
          $0.replacingOccurrences(of: "HOST", with: "127.0.0.1").replacingOccurrences(of: "8080", with: "\(port)")
        }
      }
    #expect(commands.map { $0.prefix(3).joined(separator: " ") } == [
      "stressmon-hub token create", "stressmon-hub token create", "stressmon-hub serve --host", "stressmon sync --once",
    ])
    guard commands.count == 4 else { return }
    for command in commands.prefix(2) {
      let result = try await Self.hub(Array(command.dropFirst()), environment: environment, in: directory.path)
      #expect(result.status == 0, "\(command): \(result.stderr)")
    }
    let serve = Process()
    serve.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon-hub")
    serve.arguments = Array(commands[2].dropFirst())
    serve.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    serve.currentDirectoryURL = URL(fileURLWithPath: directory.path)
    serve.standardOutput = FileHandle.nullDevice
    serve.standardError = FileHandle.nullDevice
    try serve.run()
    defer { if serve.isRunning { serve.terminate() } }
    var listening = false
    for _ in 0..<200 where !listening {
      try await Task.sleep(for: .milliseconds(50))
      listening = (try? RawSocket(port: port)) != nil
    }
    #expect(listening)
    // The device: its store is the daemon's; here a file outbox holds the rows it would have
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "desk-1", count: 3))
    let sync = try await offload {
      try CLIRunner.run(Array(commands[3].dropFirst()) + ["--outbox", outbox], workingDirectory: directory.path)
    }
    #expect(sync.status == 0, "\(sync.stderr)")
    // The fleet page with the reader token as the password of the browser's prompt
    let reader = try String(contentsOfFile: directory.file("reader.token"), encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let basic = Data("me:\(reader)".utf8).base64EncodedString()
    let fleet = try await offload { () -> (Int?, String) in
      let socket = try RawSocket(port: port)
      try socket.send("GET /devices HTTP/1.1\r\nHost: hub\r\nAuthorization: Basic \(basic)\r\n\r\n")
      let (answers, _) = socket.answers(1, timeout: 10)
      return (answers.first?.status, answers.first?.body ?? "")
    }
    serve.terminate()
    try await offload { serve.waitUntilExit() }
    #expect(fleet.0 == 200)
    #expect(fleet.1.contains("desk-1") && fleet.1.contains("1 device,"), "\(fleet.1.prefix(400))")
    let storage = try SQLiteHubStorage(path: home + "/.local/state/stressmon-hub/hub.sqlite")
    #expect(try await storage.count(deviceId: "desk-1") == 3)
  }

  @Test("token create --kiosk prints the URL the display opens, from --url or from serve's settings")
  func kioskURL() async throws {
    let directory = try TemporaryDirectory("first-run")
    defer { directory.remove() }
    let environment = Self.clean(home: directory.file("home"))
    let given = try await Self.hub(
      ["token", "create", "--kiosk", "--device", "desk-1", "--url", "http://hub.local:8080/"], environment: environment)
    #expect(given.status == 0, "\(given.stderr)")
    let url = given.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(url.hasPrefix("http://hub.local:8080/kiosk/desk-1?key="), "\(url)")
    #expect(url.split(separator: "=").last.map { $0.count == 64 && $0.allSatisfy(\.isHexDigit) } == true)
    let fromServe = try await Self.hub(
      ["token", "create", "--kiosk", "--device", "desk-2"],
      environment: environment.merging(["STRESSMON_HUB_HOST": "10.0.0.5", "STRESSMON_HUB_PORT": "9000"]) { $1 })
    #expect(fromServe.stdout.hasPrefix("http://10.0.0.5:9000/kiosk/desk-2?key="), "\(fromServe.stdout)")
    #expect(!given.stdout.contains("HOST") && !given.stderr.contains("HOST:PORT"))
  }

  @Test("every error is one line that says what to do, with its sysexits code")
  func oneLineErrors() async throws {
    let directory = try TemporaryDirectory("first-run")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let environment = Self.clean(home: directory.file("home"))
    // A port another program holds
    let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(holder) }
    let busy = try Self.freePort()
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(busy).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    listen(holder, 1)
    let cases: [(arguments: [String], environment: [String: String], code: Int32, says: String)] = [
      (["serve", "--db", db, "--port", "70000"], [:], 64, "0-65535"),
      (["serve", "--db", db, "--stale-after", "0"], [:], 64, "positive"),
      (["serve", "--db", db], ["STRESSMON_HUB_PORT": "eighty"], 64, "STRESSMON_HUB_PORT"),
      (["serve", "--db", db, "--log-format", "xml"], [:], 64, "logfmt or json"),
      (["serve", "--db", db, "--port", "\(busy)"], [:], 69, "already in use"),
      (["serve", "--db", db, "--tls-key", "k.pem"], [:], 64, "go together"),
      (["serve", "--db", "/proc/no-such-dir/hub.sqlite"], [:], 73, "check the path"),
      (["token", "create", "--kiosk", "--db", db], [:], 64, "--device"),
      (["token", "create", "--reader", "--url", "http://x:1", "--db", db], [:], 64, "--kiosk"),
      (["token", "revoke", "0123456789ab", "--db", db], [:], 64, "token list"),
      (["device", "delete", "nobody", "--db", db], [:], 64, "token list"),
      (["frobnicate"], [:], 64, "help"),
      (["token", "list", "--postgres", "postgres://hub:pw@127.0.0.1:9/x"], [:], 64, "--postgres-password-file"),
    ]
    for item in cases {
      let result = try await Self.hub(item.arguments, environment: environment.merging(item.environment) { $1 })
      let lines = result.stderr.split(separator: "\n")
      #expect(result.status == item.code, "\(item.arguments): \(result.stderr)")
      #expect(lines.count == 1 && lines[0].hasPrefix("stressmon-hub: "), "\(item.arguments): \(result.stderr)")
      #expect(result.stderr.contains(item.says), "\(item.arguments): \(result.stderr)")
      #expect(!result.stderr.contains(":pw@"), "a password is never repeated")
    }
  }

  @Test("counts read as English: 1 row, 1 token; 2 rows")
  func plurals() async throws {
    let directory = try TemporaryDirectory("first-run")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let storage = try SQLiteHubStorage(path: db)
    try await storage.migrate()
    _ = try await HubTokens.create(deviceId: "one-1", storage: storage, now: Date().timeIntervalSince1970)
    let rows = try MeasurementFixtures.records(device: "one-1", count: 2)
    let now = Date().timeIntervalSince1970
    _ = try await storage.upsert(deviceId: "one-1", records: [rows[0]], receivedAt: now, outboxPending: nil)
    try await storage.close()
    let ask = try await Self.hub(["device", "delete", "one-1", "--db", db])
    #expect(ask.stderr.contains("this deletes 1 row and 1 token of"), "\(ask.stderr)")
    let done = try await Self.hub(["device", "delete", "one-1", "--db", db, "--yes"])
    #expect(done.stdout.contains("Deleted device one-1: 1 row, 1 token"), "\(done.stdout)")
    #expect(counted(2, "row") == "2 rows" && counted(0, "device") == "0 devices" && counted(1, "day") == "1 day")
  }
}
