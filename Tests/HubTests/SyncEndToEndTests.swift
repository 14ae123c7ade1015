import Foundation
import Hub
import Logging
import Store
import Sync
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The device's sync client against the real hub on loopback, through every failure the issue lists; at the
/// end the hub must hold every measurement exactly once and the outbox must be empty.
@Suite("Sync end to end on loopback", .serialized)
struct SyncEndToEndTests {
  static let rowCount = 2000

  /// Everything the hub stores for `device`, via the public feed (paged), with ids checked to be unique.
  static func hubRows(_ storage: any HubStorage, device: String) async throws -> [MeasurementRecord] {
    var rows: [MeasurementRecord] = []
    var cursor: Int64 = 0
    while true {
      let slice = try await storage.feed(deviceId: device, after: cursor, limit: 1000)
      rows += slice.rows
      cursor = slice.lastSequence
      if !slice.hasMore { return rows }
    }
  }

  static func makeStorage(_ directory: TemporaryDirectory) async throws -> SQLiteHubStorage {
    let storage = try SQLiteHubStorage(path: directory.file("hub.sqlite"))
    try await storage.migrate()
    return storage
  }

  @Test("down, 500, slow, 429, garbage, restarted mid-batch: every row arrives exactly once", arguments: OutboxKind.allCases)
  func faultMatrix(kind: OutboxKind) async throws {
    let directory = try TemporaryDirectory("e2e")
    defer { directory.remove() }
    let storage = try await Self.makeStorage(directory)
    let device = "e2e-desk"
    let token = try await HubTokens.create(deviceId: device, storage: storage, now: Date().timeIntervalSince1970)
    let rows = try MeasurementFixtures.records(device: device, count: Self.rowCount)
    let outbox = try kind.create(at: directory.file("outbox"), rows: rows)

    // Given a hub that is down at first (bound once for a port, then stopped) and then misbehaves in turn
    let hub = LiveHub(
      storage: storage,
      faults: [
        .status(500), .slowAfterStore(1.5), .status(429, retryAfter: "1"), .garbageAfterStore, .restartAfterStore,
        .status(503, retryAfter: Self.httpDate(Date().addingTimeInterval(1))), .status(502),
      ])
    try await hub.start()
    await hub.stop()
    let configuration = SyncConfiguration(
      hubURL: hub.baseURL, token: token, allowInsecureHTTP: true, connectTimeout: 0.5, requestTimeout: 1.0,
      backoff: BackoffPolicy(base: 0.05, cap: 0.4, maxRetryAfter: 5), maxAttemptsPerRun: 60)
    let transport = try AsyncHTTPTransport(configuration: configuration)
    let clock = BackoffWatchingClock()
    let client = try SyncClient(outbox: outbox, transport: transport, configuration: configuration, clock: clock)

    // When the device syncs, and the hub comes up only once the device has failed to reach it and backs off
    // (waiting for that, not for a fixed time, keeps the "down" step in the run however loaded the machine is)
    let started = Date()
    let run = Task { try await client.runOnce() }
    while clock.backoffs == 0, Date().timeIntervalSince(started) < 20 {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(clock.backoffs > 0, "the client never backed off from the hub that was down")
    try await hub.start()
    let report = try await run.value
    try await transport.shutdown()
    await hub.stop()

    // Then every fault was met, retried, and nothing was lost or duplicated
    #expect(hub.servedFaults.compactMap { $0 }.count == 7)
    #expect(report.drained, "stopped by \(String(describing: report.stoppedBy))")
    #expect(report.retries >= 8, "down + 7 faults must each cost a retry")
    #expect(report.uploaded == Self.rowCount && report.quarantined == 0)
    let held = try await Self.hubRows(storage, device: device)
    #expect(held.count == Self.rowCount)
    #expect(Set(held.map(\.id)).count == Self.rowCount)
    #expect(Dictionary(uniqueKeysWithValues: held.map { ($0.id, $0) }) == Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) }))
    // No wall-clock bound: `drained` already says the run ended within its own attempt budget and deadline, and
    // how long a loaded machine takes is for the benchmarks.
    #expect(try outbox.outboxStatus().pending == 0)
  }

  @Test("the device killed with SIGKILL mid-sync resumes: exactly once on the hub, outbox empty", arguments: OutboxKind.allCases)
  func sigkillMidSync(kind: OutboxKind) async throws {
    let directory = try TemporaryDirectory("e2e-kill")
    defer { directory.remove() }
    let storage = try await Self.makeStorage(directory)
    let device = "e2e-wearable"
    let token = try await HubTokens.create(deviceId: device, storage: storage, now: Date().timeIntervalSince1970)
    let tokenFile = try directory.writePrivate("token", token + "\n")
    let rows = try MeasurementFixtures.records(device: device, count: Self.rowCount)
    let outboxPath = directory.file("outbox")
    do { _ = try kind.create(at: outboxPath, rows: rows) }

    // Given a slow hub: each batch is stored, then its answer takes 0.5 s
    let hub = LiveHub(storage: storage, delayAfterStore: 0.5)
    try await hub.start()
    defer { Task { await hub.stop() } }
    let arguments = [
      "sync", "--once", kind.flag, outboxPath, "--hub", hub.baseURL, "--insecure-http",
      "--token-file", tokenFile, "--backoff-base", "0.05", "--backoff-cap", "0.3", "--json",
    ]

    // When `stressmon sync` is killed after the hub stored a batch but before the device heard back
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(20)
    while try await storage.count(deviceId: device) < 500, Date() < deadline, process.isRunning {
      try await Task.sleep(for: .milliseconds(10))
    }
    kill(process.processIdentifier, SIGKILL)
    try await offload { process.waitUntilExit() }
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)

    // Then the hub holds rows the outbox still thinks pending (the lost acknowledgement)
    let heldAfterKill = try await storage.count(deviceId: device)
    let pendingAfterKill = try kind.open(at: outboxPath).outboxStatus().pending
    #expect(heldAfterKill >= 500 && heldAfterKill < Self.rowCount)
    #expect(heldAfterKill + pendingAfterKill > Self.rowCount, "the kill should land between store and acknowledgement")

    // And a second run sends what is left, the overlap included, without duplicating anything
    let rerun = try await runCLI(arguments)
    #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
    let output = try CLIRunner.json(rerun)
    #expect(output["drained"] as? Bool == true)
    let held = try await Self.hubRows(storage, device: device)
    #expect(held.count == Self.rowCount)
    #expect(Set(held.map(\.id)) == Set(rows.map(\.id)))
    #expect(held.sorted { $0.windowStart < $1.windowStart } == rows)
    let status = try kind.open(at: outboxPath).outboxStatus()
    #expect(status.pending == 0 && status.quarantined == 0)
    await hub.stop()
  }

  static func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }
}

/// The two outboxes a device can drain: the development file outbox and the real SQLite store.
enum OutboxKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case file, store

  var testDescription: String { rawValue }

  /// The `stressmon sync` flag that names this outbox.
  var flag: String { self == .file ? "--outbox" : "--db" }

  /// Creates the outbox at `path` holding `rows` (as written by the daemon, clock synchronised).
  func create(at path: String, rows: [MeasurementRecord]) throws -> any SyncOutbox {
    switch self {
    case .file:
      let outbox = try FileOutbox(directory: path)
      try outbox.add(rows)
      return outbox
    case .store:
      let store = try MeasurementStore(path: path)
      let last = rows.map(\.windowEnd).max() ?? 0
      try store.write(rows, clock: ClockReading(wall: last, monotonic: last, bootId: rows.first?.bootId ?? "boot", synchronised: true))
      return store
    }
  }

  func open(at path: String) throws -> any SyncOutbox {
    switch self {
    case .file: try FileOutbox(directory: path)
    case .store: try MeasurementStore(path: path, options: MeasurementStore.Options(create: false, reserveBytes: 0))
    }
  }
}

/// The real clock, counting the client's back-off sleeps so the test can act after the first failure.
final class BackoffWatchingClock: SyncClock, @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private let system = SystemSyncClock()

  var backoffs: Int { lock.withLock { count } }

  func now() -> Double { system.now() }

  func sleep(seconds: Double) async throws {
    lock.withLock { count += 1 }
    try await system.sleep(seconds: seconds)
  }
}
