import Foundation
import Logging
import PostgresNIO
import SyncWire

/// Hub storage in PostgreSQL (vapor/postgres-nio), for a fleet: hub instances keep no state of their own, so
/// several can run behind a load balancer against one database.
///
/// Ingest transactions take one advisory lock, so feed sequence numbers commit in the order they were drawn and a
/// reader paging the feed never skips a row committed late under a smaller number. That serialises writers: the
/// price of a gap-free cursor, and far from the bottleneck at ~500 rows per transaction. Numbers come from a
/// sequence, which never hands one out twice (deleted rows leave gaps, never reused numbers).
public final class PostgresHubStorage: HubStorage {
  public let kind = "postgresql"
  let client: PostgresClient
  private let runner: Task<Void, Never>
  /// Finishes when the runner task has begun (see `runnerStarted`).
  private let started: AsyncStream<Void>
  let logger: Logger
  private let options: PostgresConnectionOptions

  /// An arbitrary constant naming the hub's advisory lock (any 64-bit number no other application uses).
  static let ingestLockKey: Int64 = 0x5354_5245_5353  // "STRESS"

  /// Connects lazily to `url` (`postgres://user@host[:port]/database[?sslmode=…&sslrootcert=…]`). `password`,
  /// when given, replaces any in the URL.
  public convenience init(
    url: String, password: String? = nil, logger: Logger = Logger(label: "stressmon.hub.postgres")
  ) throws {
    var options = try PostgresConnectionOptions(url: url)
    if let password { options.password = password }
    try self.init(options: options, logger: logger)
  }

  public init(options: PostgresConnectionOptions, logger: Logger = Logger(label: "stressmon.hub.postgres")) throws {
    var configuration = PostgresClient.Configuration(
      host: options.host, port: options.port, username: options.user, password: options.password,
      database: options.database, tls: try options.tls().client)
    configuration.options.maximumConnections = 8
    client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let (started, signal) = AsyncStream<Void>.makeStream()
    self.started = started
    runner = Task { [client] in
      signal.finish()
      await client.run()
    }
    self.logger = logger
    self.options = options
  }

  // MARK: - HubStorage: measurements

  public func migrate() async throws {
    try await probe()
    await runnerStarted()
    try await transaction { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(\(Self.ingestLockKey))", logger: self.logger)
      try await PostgresHubSchema.migrate(connection, logger: self.logger)
    }
  }

  public func upsert(
    deviceId: String, records: [MeasurementRecord], receivedAt: Double, outboxPending: Int?, outboxQuarantined: Int?
  ) async throws -> UpsertOutcome {
    let payloads = try StoredPayload.encode(records)
    let pending = outboxPending.map { Int64($0) }
    return try await transaction { connection in
      try await connection.query("SELECT pg_advisory_xact_lock(\(Self.ingestLockKey))", logger: self.logger)
      var outcome = UpsertOutcome()
      let incoming = Dictionary(records.map { ($0.id, $0.modifiedAt) }, uniquingKeysWith: { max($0, $1) })
      let existing = try await connection.query(
        "SELECT id, device_id, modified_at FROM measurements WHERE id = ANY(\(Array(incoming.keys)))", logger: self.logger)
      for try await (id, owner, modifiedAt) in existing.decode((String, String, Double).self) {
        if owner != deviceId {
          outcome.foreign.insert(id)
        } else if let mine = incoming[id], modifiedAt > mine {
          outcome.keptNewer[id] = modifiedAt
        }
      }
      var ids: [String] = [], windowEnds: [Double] = [], modified: [Double] = [], kept: [String] = []
      for (record, payload) in zip(records, payloads)
      where !outcome.foreign.contains(record.id) && outcome.keptNewer[record.id] == nil {
        ids.append(record.id)
        windowEnds.append(record.windowEnd)
        modified.append(record.modifiedAt)
        kept.append(payload)
      }
      if !ids.isEmpty {
        // The WHERE keeps the rule for rows this statement meets: a tie only replaces a different payload.
        try await connection.query(
          """
          INSERT INTO measurements (id, device_id, window_end, modified_at, seq, payload)
          SELECT id, \(deviceId), window_end, modified_at, nextval('measurement_seq'), payload::jsonb
          FROM unnest(\(ids)::text[], \(windowEnds)::float8[], \(modified)::float8[], \(kept)::text[])
            WITH ORDINALITY AS incoming(id, window_end, modified_at, payload, ord)
          ORDER BY ord
          ON CONFLICT (id) DO UPDATE SET
            window_end = EXCLUDED.window_end, modified_at = EXCLUDED.modified_at, seq = EXCLUDED.seq,
            payload = EXCLUDED.payload
          WHERE measurements.device_id = EXCLUDED.device_id
            AND (EXCLUDED.modified_at > measurements.modified_at
              OR (EXCLUDED.modified_at = measurements.modified_at AND EXCLUDED.payload <> measurements.payload))
          """, logger: self.logger)
      }
      try await connection.query(
        """
        INSERT INTO devices (device_id, first_seen_at, last_upload_at, outbox_pending)
        VALUES (\(deviceId), \(receivedAt), \(receivedAt), \(pending))
        ON CONFLICT (device_id) DO UPDATE SET last_upload_at = EXCLUDED.last_upload_at,
          outbox_pending = EXCLUDED.outbox_pending
        """, logger: self.logger)
      try await Self.refreshDevice(
        connection, deviceId: deviceId, quarantined: outboxQuarantined, receivedAt: receivedAt, logger: self.logger)
      return outcome
    }
  }

  public func latest(deviceId: String, notAfter: Double) async throws -> MeasurementRecord? {
    let rows = try await client.query(
      """
      SELECT payload::text FROM measurements WHERE device_id = \(deviceId) AND window_end <= \(notAfter)
      ORDER BY window_end DESC, id DESC LIMIT 1
      """, logger: logger)
    for try await payload in rows.decode(String.self) { return try StoredPayload.decode(payload) }
    return nil
  }

  public func feedPayloads(deviceId: String?, after: Int64, limit: Int) async throws -> RawFeedSlice {
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
    return RawFeedSlice(rows: page.map(\.1), lastSequence: page.last?.0 ?? after, hasMore: collected.count > limit)
  }

  public func rows(deviceId: String, windowEnd: Range<Double>) async throws -> [MeasurementRecord] {
    let rows = try await client.query(
      """
      SELECT payload::text FROM measurements WHERE device_id = \(deviceId)
        AND window_end >= \(windowEnd.lowerBound) AND window_end < \(windowEnd.upperBound)
      ORDER BY window_end, id
      """, logger: logger)
    var records: [MeasurementRecord] = []
    for try await payload in rows.decode(String.self) { records.append(try StoredPayload.decode(payload)) }
    return records
  }

  public func devices(notAfter: Double) async throws -> [DeviceSummary] {
    let rows = try await client.query(
      """
      SELECT d.device_id, d.first_seen_at, d.last_upload_at, d.outbox_pending,
        (SELECT payload::text FROM measurements m WHERE m.device_id = d.device_id AND m.window_end <= \(notAfter)
         ORDER BY m.window_end DESC, m.id DESC LIMIT 1)
      FROM devices d ORDER BY d.device_id
      """, logger: logger)
    var devices: [DeviceSummary] = []
    for try await (device, firstSeen, lastUpload, pending, payload) in rows.decode(
      (String, Double, Double?, Int64?, String?).self)
    {
      devices.append(DeviceSummary(
        deviceId: device, firstSeenAt: firstSeen, lastUploadAt: lastUpload, outboxPending: pending.map { Int($0) },
        latest: try payload.map { try StoredPayload.decode($0) }))
    }
    return devices
  }

  public func deleteDevice(_ deviceId: String) async throws -> DeviceDeletion {
    try await transaction { connection in
      func delete(_ query: PostgresQuery) async throws -> Int {
        for try await count in try await connection.query(query, logger: self.logger).decode(Int64.self) {
          return Int(count)
        }
        return 0
      }
      let rows = try await delete(
        "WITH gone AS (DELETE FROM measurements WHERE device_id = \(deviceId) RETURNING 1) SELECT COUNT(*) FROM gone")
      let tokens = try await delete(
        "WITH gone AS (DELETE FROM tokens WHERE device_id = \(deviceId) RETURNING 1) SELECT COUNT(*) FROM gone")
      let known = try await delete(
        "WITH gone AS (DELETE FROM devices WHERE device_id = \(deviceId) RETURNING 1) SELECT COUNT(*) FROM gone")
      return DeviceDeletion(rows: rows, tokens: tokens, known: rows + tokens + known > 0)
    }
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

  // MARK: - Internal

  /// One connection made and closed before the pool is used: the pool retries a failing server forever, so a
  /// wrong password, an untrusted certificate or a server that is not there would make the hub hang at start
  /// instead of saying why.
  func probe() async throws {
    let description = "PostgreSQL at \(options.host):\(options.port) (sslmode=\(options.sslMode.rawValue))"
    do {
      let connection = try await PostgresConnection.connect(
        configuration: PostgresConnection.Configuration(
          host: options.host, port: options.port, username: options.user, password: options.password,
          database: options.database, tls: try options.connectionTLS()),
        id: 0, logger: logger)
      try await connection.close()
    } catch {
      throw HubStorageError(
        "cannot connect to \(description): \(String(reflecting: error)); check the URL, the password and sslrootcert")
    }
  }

  /// Waits until the pool's `run()` task is under way: a lease before that works but makes PostgresNIO log a
  /// warning, which `stressmon-hub token create` would print for nothing.
  func runnerStarted() async {
    for await _ in started {}
    await Task.yield()
  }

  func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    do {
      return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
    } catch let error as PostgresTransactionError {
      throw HubStorageError("PostgreSQL transaction failed: \(String(reflecting: error.closureError ?? error))")
    }
  }
}
