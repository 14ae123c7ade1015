import Foundation
import Hub
import SyncTestSupport
import TestSupport
import Testing

@Suite("stressmon-hub command")
struct HubCommandTests {
  @Test("token create prints a 64-hex token once and stores only its hash")
  func tokenCreate() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let result = try await offload { try CLIRunner.run(["token", "create", "--device", "desk-7", "--db", db], product: "stressmon-hub") }
    #expect(result.status == 0, "\(result.stderr)")
    let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
    let storage = try SQLiteHubStorage(path: db)
    #expect(try await storage.credential(forTokenHash: HubTokens.hash(token)) == Credential(
      tokenId: HubTokens.id(forHash: HubTokens.hash(token)), kind: .device, deviceId: "desk-7"))
    let file = try Data(contentsOf: URL(fileURLWithPath: db))
    #expect(file.range(of: Data(token.utf8)) == nil, "the token itself must not be stored")
  }

  @Test("a device id that is not path-safe is a usage error")
  func badDevice() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let result = try await offload {
      try CLIRunner.run(["token", "create", "--device", "desk/7", "--db", directory.file("hub.sqlite")], product: "stressmon-hub")
    }
    #expect(result.status == 64)
    #expect(result.stderr.contains("A-Z a-z 0-9"))
  }

  @Test("without --db the database goes to the state directory, never the working directory")
  func defaultDatabase() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let home = directory.file("home")
    let cwd = directory.file("cwd")
    try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
    let unset = ["STRESSMON_HUB_DB": "", "STRESSMON_HUB_POSTGRES": "", "STATE_DIRECTORY": "", "XDG_STATE_HOME": ""]
    let run = { (environment: [String: String]) in
      try await offload {
        try CLIRunner.run(
          ["token", "create", "--reader"], product: "stressmon-hub", environment: unset.merging(environment) { $1 },
          workingDirectory: cwd)
      }
    }
    let user = try await run(["HOME": home])
    #expect(user.status == 0, "\(user.stderr)")
    #expect(FileManager.default.fileExists(atPath: home + "/.local/state/stressmon-hub/hub.sqlite"))
    #expect(try HubAdministrationTests.mode(home + "/.local/state/stressmon-hub") == 0o700)
    try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
    let service = try await run(["HOME": home, "STATE_DIRECTORY": directory.file("state")])  // systemd made it
    #expect(service.status == 0, "\(service.stderr)")
    #expect(FileManager.default.fileExists(atPath: directory.file("state") + "/hub.sqlite"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: cwd).isEmpty, "nothing written where it was started")
    // A file left by the old default is named, not silently replaced by a new empty database.
    _ = FileManager.default.createFile(atPath: cwd + "/stressmon-hub.sqlite", contents: nil)
    let old = try await run(["HOME": home])
    #expect(old.status == 64 && old.stderr.contains("--db stressmon-hub.sqlite"), "\(old.stderr)")
  }

  @Test("a missing TLS key or an unreadable certificate is refused before listening")
  func tlsOptions() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let half = try await offload { try CLIRunner.run(["serve", "--db", db, "--tls-cert", "x.pem"], product: "stressmon-hub") }
    #expect(half.status == 64)
    let missing = try await offload {
      try CLIRunner.run(["serve", "--db", db, "--tls-cert", directory.file("no.pem"), "--tls-key", directory.file("no.key")], product: "stressmon-hub")
    }
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("certificate chain"))
  }
}

@Suite("stressmon-hub tokens, devices and settings")
struct HubAdministrationTests {
  static func hub(_ arguments: [String], environment: [String: String] = [:]) async throws -> CLIRunner.Result {
    try await offload { try CLIRunner.run(arguments, product: "stressmon-hub", environment: environment) }
  }

  static func mode(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
  }

  @Test("token files and the database are created 0600; kinds, list with last use, revoke")
  func tokensAndModes() async throws {
    let directory = try TemporaryDirectory("hub-admin")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let out = directory.file("desk.token")
    let created = try await Self.hub(["token", "create", "--device", "desk-1", "--db", db, "--out", out, "--json"])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(try Self.mode(out) == 0o600 && Self.mode(db) == 0o600)
    let json = try CLIRunner.json(created)
    #expect(json["kind"] as? String == "device" && json["token"] == nil, "--out keeps the token off stdout")
    let again = try await Self.hub(["token", "create", "--device", "desk-1", "--db", db, "--out", out])
    #expect(again.status == 73, "an existing token file is never overwritten")

    let reader = try await Self.hub(["token", "create", "--reader", "--db", db, "--json"])
    let readerId = try CLIRunner.json(reader)["id"] as? String
    let kiosk = try await Self.hub(["token", "create", "--kiosk", "--db", db])
    #expect(kiosk.status == 64 && kiosk.stderr.contains("--device"))

    let list = try await Self.hub(["token", "list", "--db", db, "--json"])
    let tokens = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    #expect(tokens.map { $0["kind"] as? String } == ["device", "reader"])
    #expect(tokens.allSatisfy { ($0["id"] as? String)?.count == 12 && $0["token"] == nil })
    #expect(!list.stdout.contains(try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .newlines)))
    let text = try await Self.hub(["token", "list", "--db", db])
    #expect(text.stdout.contains("(all)") && text.stdout.contains("never"))

    let revoked = try await Self.hub(["token", "revoke", readerId ?? "?", "--db", db])
    #expect(revoked.status == 0 && revoked.stdout.contains("Revoked"))
    let unknown = try await Self.hub(["token", "revoke", readerId ?? "?", "--db", db])
    #expect(unknown.status == 64 && unknown.stderr.contains("token list"))
  }

  @Test("device delete says what it would delete, then deletes rows and tokens with --yes")
  func deviceDelete() async throws {
    let directory = try TemporaryDirectory("hub-admin")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let storage = try SQLiteHubStorage(path: db)
    try await storage.migrate()
    let now = Date().timeIntervalSince1970
    _ = try await HubTokens.create(deviceId: "leaver", storage: storage, now: now)
    let rows = try MeasurementFixtures.records(device: "leaver", count: 25)
    _ = try await storage.upsert(deviceId: "leaver", records: rows, receivedAt: now, outboxPending: nil)
    try await storage.close()

    let dry = try await Self.hub(["device", "delete", "leaver", "--db", db])
    #expect(dry.status == 64 && dry.stderr.contains("25 rows and 1 token") && dry.stderr.contains("--yes"))
    let deleted = try await Self.hub(["device", "delete", "leaver", "--db", db, "--yes", "--json"])
    #expect(deleted.status == 0, "\(deleted.stderr)")
    #expect(try CLIRunner.json(deleted)["rows"] as? Int == 25)
    let reopened = try SQLiteHubStorage(path: db)
    #expect(try await reopened.count(deviceId: "leaver") == 0)
    #expect(try await reopened.tokens().isEmpty)
    let file = try Data(contentsOf: URL(fileURLWithPath: db))
    #expect(file.range(of: Data(rows[0].id.utf8)) == nil, "deleted rows must not linger in the file's free pages")
    let unknown = try await Self.hub(["device", "delete", "nobody", "--db", db, "--yes"])
    #expect(unknown.status == 64)
  }

  @Test("a PostgreSQL password on the command line is refused before connecting")
  func passwordNotFromArgv() async throws {
    let result = try await Self.hub(["token", "list", "--postgres", "postgres://hub:secret@127.0.0.1:9/stressmon"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--postgres-password-file") && !result.stderr.contains("secret"))
  }

  @Test("serve: settings from the environment, loopback by default, JSON log lines with request ids")
  func serveFromEnvironment() async throws {
    let directory = try TemporaryDirectory("hub-serve")
    defer { directory.remove() }
    let log = directory.file("hub.log")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon-hub")
    process.arguments = ["serve"]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "STRESSMON_HUB_DB": directory.file("env.sqlite"), "STRESSMON_HUB_PORT": "0", "STRESSMON_HUB_LOG_FORMAT": "json",
    ]) { _, new in new }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    // The listening line names the address: 127.0.0.1 unless told otherwise
    var listening: [String: Any]?
    for _ in 0..<200 where listening == nil {
      try await Task.sleep(for: .milliseconds(50))
      let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n") ?? []
      listening = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        .first { $0["msg"] as? String == "listening" }
    }
    let address = try #require(listening?["address"] as? String)
    #expect(address.hasPrefix("http://127.0.0.1:"))
    #expect(FileManager.default.fileExists(atPath: directory.file("env.sqlite")))
    let port = Int(address.split(separator: ":").last ?? "") ?? 0
    let status = try await offload { () -> Int? in
      let socket = try RawSocket(port: port)
      try socket.send("GET /healthz HTTP/1.1\r\nHost: hub\r\nX-Request-Id: probe-7\r\n\r\n")
      return socket.status(timeout: 10)
    }
    #expect(status == 200)
    process.terminate()
    try await offload { process.waitUntilExit() }
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    let request = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
      .first { $0["msg"] as? String == "request" }
    #expect(request?["request_id"] as? String == "probe-7")
    #expect(request?["path"] as? String == "/healthz" && request?["status"] as? String == "200")
  }

  @Test("commands that read or change what exists never create a database: a mistyped --db is exit 66")
  func readCommandsDoNotCreate() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let typo = directory.file("typo.sqlite")
    for arguments in [["token", "list"], ["token", "revoke", "0123456789ab"], ["device", "delete", "desk-1", "--yes"]] {
      let result = try await offload { try CLIRunner.run(arguments + ["--db", typo], product: "stressmon-hub") }
      #expect(result.status == 66, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("no hub database at \(typo)"), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: typo), "\(arguments) created \(typo)")
    }
    // Without --db either: the default place is neither made nor filled.
    let home = directory.file("home")
    let unset = ["STRESSMON_HUB_DB": "", "STRESSMON_HUB_POSTGRES": "", "STATE_DIRECTORY": "", "XDG_STATE_HOME": ""]
    let list = try await offload {
      try CLIRunner.run(["token", "list"], product: "stressmon-hub", environment: unset.merging(["HOME": home]) { $1 })
    }
    #expect(list.status == 66, "\(list.stderr)")
    #expect(!FileManager.default.fileExists(atPath: home), "token list made \(home)")
    // token create does make it, and token list then reads it.
    let created = try await offload {
      try CLIRunner.run(["token", "create", "--reader", "--db", typo], product: "stressmon-hub")
    }
    #expect(created.status == 0, "\(created.stderr)")
    let listed = try await offload { try CLIRunner.run(["token", "list", "--db", typo], product: "stressmon-hub") }
    #expect(listed.status == 0 && listed.stdout.contains("reader"), "\(listed.stderr)")
  }
}
