import Logging
import PostgresNIO
import SyncWire

/// Hub storage in PostgreSQL (vapor/postgres-nio), for a fleet: hub instances keep no state of their own, so
/// several can run behind a load balancer against one database.
///
/// Ingest transactions take one advisory lock, so feed sequence numbers commit in the order they were drawn and a
/// reader paging the feed never skips a row committed late under a smaller number. That serialises writers: the
/// price of a gap-free cursor, and far from the bottleneck at ~500 rows per transaction.
public final class PostgresHubStorage: HubStorage {
  public let kind = "postgresql"
  private let client: PostgresClient
  private let runner: Task<Void, Never>
  /// Finishes when the runner task has begun (see `runnerStarted`).
  private let started: AsyncStream<Void>
  private let logger: Logger

  /// An arbitrary constant naming the hub's advisory lock (any 64-bit number no other application uses).
  private static let ingestLockKey: Int64 = 0x5354_5245_5353  // "STRESS"

  /// Connects lazily to `url` (`postgres://user[:password]@host[:port]/database`).
  public init(url: String, logger: Logger = Logger(label: "stressmon.hub.postgres")) throws {
    let parts = try PostgresURL(url)
    var configuration = PostgresClient.Configuration(
      host: parts.host, port: parts.port, username: parts.user, password: parts.password, database: parts.database,
      tls: .disable)
    configuration.options.maximumConnections = 8
    client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let (started, signal) = AsyncStream<Void>.makeStream()
    self.started = started
    runner = Task { [client] in
      signal.finish()
      await client.run()
    }
    self.logger = logger
  }

  // MARK: - HubStorage

  public func migrate() async throws {
    await runnerStarted()
    try await transaction { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(\(Self.ingestLockKey))", logger: self.logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS measurements (
          id text PRIMARY KEY,
          device_id text NOT NULL,
          window_end double precision NOT NULL,
          modified_at double precision NOT NULL,
          seq bigint NOT NULL UNIQUE,
          payload jsonb NOT NULL
        )
        """, logger: self.logger)
      try await connection.query("CREATE SEQUENCE IF NOT EXISTS measurement_seq", logger: self.logger)
      try await connection.query(
        "CREATE INDEX IF NOT EXISTS measurements_device_window ON measurements (device_id, window_end)",
        logger: self.logger)
      try await connection.query(
        "CREATE INDEX IF NOT EXISTS measurements_device_seq ON measurements (device_id, seq)", logger: self.logger)
      try await connection.query(
        """
        CREATE TABLE IF NOT EXISTS tokens (
          token_hash text PRIMARY KEY, device_id text NOT NULL, created_at double precision NOT NULL)
        """, logger: self.logger)
    }
  }

  public func upsert(deviceId: String, records: [MeasurementRecord]) async throws -> Set<String> {
    guard !records.isEmpty else { return [] }
    let payloads = try StoredPayload.encode(records)
    return try await transaction { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(\(Self.ingestLockKey))", logger: self.logger)
      let ids = records.map(\.id)
      var foreign: Set<String> = []
      let owners = try await connection.query(
        "SELECT id FROM measurements WHERE id = ANY(\(ids)) AND device_id <> \(deviceId)", logger: self.logger)
      for try await id in owners.decode(String.self) { foreign.insert(id) }
      var keptIds: [String] = [], windowEnds: [Double] = [], modified: [Double] = [], kept: [String] = []
      for (record, payload) in zip(records, payloads) where !foreign.contains(record.id) {
        keptIds.append(record.id)
        windowEnds.append(record.windowEnd)
        modified.append(record.modifiedAt)
        kept.append(payload)
      }
      guard !keptIds.isEmpty else { return foreign }
      try await connection.query(
        """
        INSERT INTO measurements (id, device_id, window_end, modified_at, seq, payload)
        SELECT id, \(deviceId), window_end, modified_at, nextval('measurement_seq'), payload::jsonb
        FROM unnest(\(keptIds)::text[], \(windowEnds)::float8[], \(modified)::float8[], \(kept)::text[])
          WITH ORDINALITY AS incoming(id, window_end, modified_at, payload, ord)
        ORDER BY ord
        ON CONFLICT (id) DO UPDATE SET
          window_end = EXCLUDED.window_end, modified_at = EXCLUDED.modified_at, seq = EXCLUDED.seq,
          payload = EXCLUDED.payload
        WHERE measurements.device_id = EXCLUDED.device_id
          AND (EXCLUDED.modified_at > measurements.modified_at
            OR (EXCLUDED.modified_at = measurements.modified_at AND EXCLUDED.payload <> measurements.payload))
        """, logger: self.logger)
      return foreign
    }
  }

  public func latest(deviceId: String) async throws -> MeasurementRecord? {
    let rows = try await client.query(
      "SELECT payload::text FROM measurements WHERE device_id = \(deviceId) ORDER BY window_end DESC, id DESC LIMIT 1",
      logger: logger)
    for try await payload in rows.decode(String.self) { return try StoredPayload.decode(payload) }
    return nil
  }

  public func feed(deviceId: String?, after: Int64, limit: Int) async throws -> FeedSlice {
    let fetch = Int64(limit + 1)
    let rows: PostgresRowSequence
    if let deviceId {
      rows = try await client.query(
        "SELECT seq, payload::text FROM measurements WHERE device_id = \(deviceId) AND seq > \(after) ORDER BY seq LIMIT \(fetch)",
        logger: logger)
    } else {
      rows = try await client.query(
        "SELECT seq, payload::text FROM measurements WHERE seq > \(after) ORDER BY seq LIMIT \(fetch)", logger: logger)
    }
    var collected: [(Int64, String)] = []
    for try await row in rows.decode((Int64, String).self) { collected.append(row) }
    let page = collected.prefix(limit)
    return FeedSlice(
      rows: try page.map { try StoredPayload.decode($0.1) }, lastSequence: page.last?.0 ?? after,
      hasMore: collected.count > limit)
  }

  public func device(forTokenHash hash: String) async throws -> String? {
    let rows = try await client.query("SELECT device_id FROM tokens WHERE token_hash = \(hash)", logger: logger)
    for try await device in rows.decode(String.self) { return device }
    return nil
  }

  public func addToken(hash: String, deviceId: String, createdAt: Double) async throws {
    try await client.query(
      "INSERT INTO tokens (token_hash, device_id, created_at) VALUES (\(hash), \(deviceId), \(createdAt))",
      logger: logger)
  }

  public func count(deviceId: String?) async throws -> Int {
    let rows: PostgresRowSequence
    if let deviceId {
      rows = try await client.query("SELECT COUNT(*) FROM measurements WHERE device_id = \(deviceId)", logger: logger)
    } else {
      rows = try await client.query("SELECT COUNT(*) FROM measurements", logger: logger)
    }
    for try await count in rows.decode(Int64.self) { return Int(count) }
    return 0
  }

  public func ping() async throws {
    try await client.query("SELECT 1", logger: logger)
  }

  public func close() async throws {
    runner.cancel()
    await runner.value
  }

  // MARK: - Private

  /// Waits until the pool's `run()` task is under way: a lease before that works but makes PostgresNIO log a
  /// warning, which `stressmon-hub token create` would print for nothing.
  private func runnerStarted() async {
    for await _ in started {}
    await Task.yield()
  }

  private func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    do {
      return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
    } catch let error as PostgresTransactionError {
      throw HubStorageError("PostgreSQL transaction failed: \(String(reflecting: error.closureError ?? error))")
    }
  }
}

/// `postgres://user[:password]@host[:port]/database`, the usual libpq URL form (without query options).
struct PostgresURL {
  var user: String
  var password: String?
  var host: String
  var port: Int
  var database: String

  init(_ url: String) throws {
    let invalid = HubStorageError(
      "PostgreSQL URL '\(url)' is not of the form postgres://user[:password]@host[:port]/database")
    var rest = Substring(url)
    if rest.hasPrefix("postgres://") {
      rest = rest.dropFirst("postgres://".count)
    } else if rest.hasPrefix("postgresql://") {
      rest = rest.dropFirst("postgresql://".count)
    } else {
      throw invalid
    }
    guard let at = rest.lastIndex(of: "@"), let slash = rest[at...].firstIndex(of: "/") else { throw invalid }
    let credentials = rest[..<at].split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
    let hostPort = rest[rest.index(after: at)..<slash].split(separator: ":")
    guard let userPart = credentials.first, !userPart.isEmpty, let hostPart = hostPort.first else { throw invalid }
    user = userPart
    password = credentials.count > 1 ? credentials[1] : nil
    host = String(hostPart)
    port = hostPort.count > 1 ? (Int(hostPort[1]) ?? -1) : 5432
    database = String(rest[rest.index(after: slash)...])
    guard (1...65535).contains(port), !database.isEmpty else { throw invalid }
  }
}

import Foundation
