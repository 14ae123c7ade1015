import Foundation
import Hub
import Sync
import SyncTestSupport
import Store
import SyncWire
import TestSupport
import Testing

@Suite("stressmon sync command against a live hub", .serialized)
struct SyncCommandTests {
  @Test("a wrong token exits 69 with advice and every row stays pending")
  func wrongToken() async throws {
    let directory = try TemporaryDirectory("sync-cli")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "cli-desk", count: 20))
    let tokenFile = try directory.writePrivate("token", String(repeating: "a", count: 64))
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let result = try await runCLI([
      "sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--insecure-http", "--token-file", tokenFile,
    ])
    await hub.stop()
    #expect(result.status == 69)
    #expect(result.stderr.contains("HTTP 401") && result.stderr.contains("stressmon-hub token create"))
    #expect(try FileOutbox(directory: outbox).outboxStatus().pending == 20)
    #expect(try await storage.count(deviceId: nil) == 0)
  }

  /// A hub store in `directory` and a token file for device "cli-desk".
  static func hubStorage(_ directory: TemporaryDirectory) async throws -> (SQLiteHubStorage, String) {
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let token = try await HubTokens.create(deviceId: "cli-desk", storage: storage, now: Date().timeIntervalSince1970)
    return (storage, try directory.writePrivate("token", token))
  }

  @Test("a row the hub rejects is quarantined and --status shows why; the others are uploaded")
  func quarantineShownByStatus() async throws {
    let directory = try TemporaryDirectory("sync-cli")
    defer { directory.remove() }
    let (storage, tokenFile) = try await Self.hubStorage(directory)
    var rows = try MeasurementFixtures.records(device: "cli-desk", count: 30)
    rows[4].stressLevel = 140
    rows[9].clockSynchronised = false
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(rows)
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let sync = try await runCLI([
      "sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--insecure-http", "--token-file", tokenFile, "--json",
    ])
    await hub.stop()
    // Exit 65 when the hub refused rows, with the way out on one line; the report is on stdout all the same.
    #expect(sync.status == 65, "stderr: \(sync.stderr)")
    #expect(sync.stderr.contains("refused 1 row,") && sync.stderr.contains("--requeue all"), "\(sync.stderr)")
    let report = try CLIRunner.json(sync)
    #expect(report["uploaded"] as? Int == 28 && report["quarantined"] as? Int == 1)

    let status = try await runCLI(["sync", "--status", "--outbox", outbox])
    #expect(status.status == 0)
    #expect(status.stdout.contains("0 pending, 1 waiting for the clock to synchronise, 1 quarantined"))
    #expect(status.stdout.contains(rows[4].id) && status.stdout.contains("stress_level 140"))
    let json = try CLIRunner.json(try await runCLI(["sync", "--status", "--json", "--outbox", outbox]))
    #expect(json["pending"] as? Int == 0 && json["waiting_for_clock"] as? Int == 1)
    #expect((json["quarantined_rows"] as? [[String: Any]])?.first?["id"] as? String == rows[4].id)
    #expect(try await storage.count(deviceId: "cli-desk") == 28)
  }

  @Test("--requeue puts a quarantined row back; the next sync sends it and the hub refuses it again; a wrong id is 64")
  func requeueQuarantined() async throws {
    let directory = try TemporaryDirectory("sync-cli")
    defer { directory.remove() }
    let (storage, tokenFile) = try await Self.hubStorage(directory)
    var rows = try MeasurementFixtures.records(device: "cli-desk", count: 12)
    rows[3].stressLevel = 140
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(rows)
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let upload = ["sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--insecure-http", "--token-file", tokenFile, "--json"]
    let first = try CLIRunner.json(try await runCLI(upload))
    #expect(first["uploaded"] as? Int == 11 && first["quarantined"] as? Int == 1)

    let typo = try await runCLI(["sync", "--requeue", "no-such-row", "--outbox", outbox])
    #expect(typo.status == 64 && typo.stderr.contains("not quarantined: no-such-row"))
    #expect(try FileOutbox(directory: outbox).outboxStatus().quarantined == 1)

    let requeued = try CLIRunner.json(try await runCLI(["sync", "--requeue", rows[3].id, "--outbox", outbox, "--json"]))
    #expect(requeued["requeued"] as? Int == 1)
    #expect((requeued["outbox"] as? [String: Any])?["pending"] as? Int == 1)
    // The journal keeps the release: a fresh open sees the row pending, not quarantined.
    let reopened = try FileOutbox(directory: outbox).outboxStatus()
    #expect(reopened.pending == 1 && reopened.quarantined == 0)

    let second = try CLIRunner.json(try await runCLI(upload))
    await hub.stop()
    #expect(second["uploaded"] as? Int == 0 && second["quarantined"] as? Int == 1)
    let again = try FileOutbox(directory: outbox).quarantined()
    #expect(again.map(\.id) == [rows[3].id] && again.first?.reason.contains("stress_level 140") == true)
    #expect(try await storage.count(deviceId: "cli-desk") == 11)

    let all = try await runCLI(["sync", "--requeue", "all", "--outbox", outbox])
    #expect(all.status == 0 && all.stdout.contains("Requeued 1 row;"))
    #expect(try FileOutbox(directory: outbox).outboxStatus().pending == 1)
  }

  @Test("plain http without --insecure-http, no token file or no store: an error before any upload")
  func usageErrors() async throws {
    let directory = try TemporaryDirectory("sync-cli")
    defer { directory.remove() }
    let tokenFile = try directory.writePrivate("token", "abc")
    let outbox = directory.file("outbox")
    let plain = try await runCLI(["sync", "--once", "--outbox", outbox, "--hub", "http://127.0.0.1:9", "--token-file", tokenFile])
    #expect(plain.status == 64)
    #expect(plain.stderr.contains("--insecure-http"))
    let missing = try await runCLI(["sync", "--once", "--outbox", outbox, "--hub", "https://hub.local", "--token-file", directory.file("nope")])
    #expect(missing.status == 66)
    // Without --outbox the device store is the outbox; a store that does not exist is "no input", never created
    let noStore = try await runCLI(["sync", "--status", "--db", directory.file("none.db")])
    #expect(noStore.status == 66)
    #expect(noStore.stderr.contains("none.db"))
    #expect(!FileManager.default.fileExists(atPath: directory.file("none.db")))
  }

  @Test("a token file every user can read is refused before any upload; one its group can read is a warning")
  func tokenFilePermissions() async throws {
    let directory = try TemporaryDirectory("sync-cli")
    defer { directory.remove() }
    let (storage, tokenFile) = try await Self.hubStorage(directory)
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "cli-desk", count: 6))
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let upload = ["sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--insecure-http", "--token-file", tokenFile]

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokenFile)
    let exposed = try await runCLI(upload)
    #expect(exposed.status == 64)
    #expect(exposed.stderr.contains("every user") && exposed.stderr.contains("chmod 600"))
    #expect(try await storage.count(deviceId: "cli-desk") == 0)

    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: tokenFile)
    let grouped = try await runCLI(upload)
    await hub.stop()
    #expect(grouped.status == 0, "\(grouped.stderr)")
    #expect(grouped.stderr.contains("warning") && grouped.stderr.contains("group"))
    #expect(try await storage.count(deviceId: "cli-desk") == 6)
    // The outbox journal holds health data too: created for its owner only
    let journal = outbox + "/" + FileOutbox.journalName
    let mode = (try FileManager.default.attributesOfItem(atPath: journal)[.posixPermissions] as? NSNumber)?.intValue
    #expect(mode == 0o600)
  }

  @Test("--status lists the newest quarantined rows and counts the rest; --json lists them all")
  func statusCapsTheQuarantinedList() async throws {
    let directory = try TemporaryDirectory("sync-status")
    defer { directory.remove() }
    let path = directory.file("device.db")
    let rows = try MeasurementFixtures.records(device: "cli-desk", count: 14)
    let store = try MeasurementStore(path: path)
    try store.write(rows)
    for (index, row) in rows.enumerated() {
      try store.quarantine(id: row.id, reason: "reason \(index)", at: 1_780_000_000 + Double(index) * 60)
    }
    store.close()
    let status = try await runCLI(["sync", "--status", "--db", path])
    #expect(status.status == 0, "\(status.stderr)")
    let listed = status.stdout.split(separator: "\n").filter { $0.contains("  quarantined ") }
    #expect(listed.count == 10, "\(status.stdout)")
    #expect(listed.first?.contains(rows[13].id) == true && listed.last?.contains(rows[4].id) == true)
    #expect(!status.stdout.contains(rows[3].id))
    #expect(status.stdout.contains("and 4 older quarantined rows"), "\(status.stdout)")
    let json = try CLIRunner.json(try await runCLI(["sync", "--status", "--json", "--db", path]))
    #expect((json["quarantined_rows"] as? [[String: Any]])?.count == 14)
  }
}
