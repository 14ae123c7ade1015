import PostgresNIO
import SyncWire

/// The pages' and gauges' reads in PostgreSQL, the same bounded queries as `SQLiteHubStorage+Pages`: a page of
/// devices from `devices` (newest-window columns refreshed by every upload), one index probe per trend slot
/// (`LATERAL`), a page of a day.
extension PostgresHubStorage {
  // MARK: - Kept on upload

  /// `(window_end, level, HRV)` of the device's newest window ending at or before `notAfter` (SQL expressions),
  /// level and HRV only when the window was scored.
  static func newestWindowSQL(device: String, notAfter: String) -> String {
    """
    SELECT m.window_end,
      CASE WHEN m.payload->>'quality' = 'good' THEN (m.payload->>'stress_level')::float8 END,
      CASE WHEN m.payload->>'quality' = 'good' THEN (m.payload->>'sdnn_ms')::float8 END
    FROM measurements m WHERE m.device_id = \(device) AND m.window_end <= \(notAfter)
    ORDER BY m.window_end DESC, m.id DESC LIMIT 1
    """
  }

  /// After an upload, in its transaction: the device's quarantine as it reported it, and its newest window.
  static func refreshDevice(
    _ connection: PostgresConnection, deviceId: String, quarantined: Int?, receivedAt: Double, logger: Logger
  ) async throws {
    // A number the hub computed, written into the statement (not text from a request).
    let notAfter = "\(receivedAt + SyncAPI.maxClockSkew)::float8"
    try await connection.query(
      """
      UPDATE devices SET outbox_quarantined = \(quarantined.map { Int64($0) }),
        (latest_window_end, latest_level, latest_hrv) = (
          \(unescaped: newestWindowSQL(device: "devices.device_id", notAfter: notAfter)))
      WHERE device_id = \(deviceId)
      """, logger: logger)
  }

  // MARK: - HubStorage: pages

  public func devicePage(_ request: DevicePageRequest) async throws -> DevicePage {
    let order = SQLiteHubStorage.orderSQL(request.order, descending: request.descending)
    let rows = try await client.query(
      """
      SELECT d.device_id, d.first_seen_at, d.last_upload_at, d.outbox_pending, d.outbox_quarantined,
        (SELECT payload::text FROM measurements m WHERE m.device_id = d.device_id AND m.window_end <= \(request.notAfter)
         ORDER BY m.window_end DESC, m.id DESC LIMIT 1)
      FROM (SELECT * FROM devices d WHERE (\(request.deviceId)::text IS NULL OR d.device_id = \(request.deviceId))
        ORDER BY \(unescaped: order) LIMIT \(Int64(max(0, request.limit))) OFFSET \(Int64(max(0, request.offset)))) d
      ORDER BY \(unescaped: order)
      """, logger: logger)
    var devices: [DeviceSummary] = []
    for try await (device, firstSeen, lastUpload, pending, quarantined, payload) in rows.decode(
      (String, Double, Double?, Int64?, Int64?, String?).self)
    {
      devices.append(DeviceSummary(
        deviceId: device, firstSeenAt: firstSeen, lastUploadAt: lastUpload, outboxPending: pending.map { Int($0) },
        outboxQuarantined: quarantined.map { Int($0) }, latest: try payload.map { try StoredPayload.decode($0) }))
    }
    let totals = try await client.query(
      """
      SELECT COUNT(*), COUNT(*) FILTER (WHERE latest_window_end IS NULL OR latest_window_end < \(request.staleBefore)),
        COALESCE(SUM(outbox_pending), 0)::bigint, COALESCE(SUM(outbox_quarantined), 0)::bigint
      FROM devices WHERE (\(request.deviceId)::text IS NULL OR device_id = \(request.deviceId))
      """, logger: logger)
    var page = DevicePage(devices: devices, total: 0, quiet: 0, pendingRows: 0, quarantinedRows: 0)
    for try await (total, quiet, pending, quarantined) in totals.decode((Int64, Int64, Int64, Int64).self) {
      (page.total, page.quiet, page.pendingRows, page.quarantinedRows) =
        (Int(total), Int(quiet), Int(pending), Int(quarantined))
    }
    return page
  }

  public func trends(deviceIds: [String], buckets: TrendBuckets) async throws -> [String: [TrendPoint]] {
    guard buckets.count > 0, buckets.step > 0, !deviceIds.isEmpty else { return [:] }
    // One index probe per device and slot: the slot's newest window, however many rows the slot holds.
    let rows = try await client.query(
      """
      SELECT d.id, k::bigint, m.window_end, (m.payload->>'stress_level')::float8, (m.payload->>'sdnn_ms')::float8,
        m.payload->>'quality'
      FROM unnest(\(deviceIds)::text[]) AS d(id)
      CROSS JOIN generate_series(0, \(Int64(buckets.count - 1))) AS k
      CROSS JOIN LATERAL (
        SELECT window_end, payload FROM measurements
        WHERE device_id = d.id AND window_end >= \(buckets.from) + k * \(buckets.step)
          AND window_end < \(buckets.from) + (k + 1) * \(buckets.step)
        ORDER BY window_end DESC LIMIT 1) m
      ORDER BY d.id, k
      """, logger: logger)
    var trends: [String: [TrendPoint]] = Dictionary(uniqueKeysWithValues: deviceIds.map { ($0, []) })
    for try await (device, bucket, windowEnd, level, hrv, quality) in rows.decode(
      (String, Int64, Double, Double?, Double?, String?).self)
    {
      trends[device, default: []].append(TrendPoint(
        bucket: Int(bucket), windowEnd: windowEnd, stressLevel: level, hrvMs: hrv, quality: TrendPoint.quality(quality)))
    }
    return trends
  }

  public func dayPayloads(deviceId: String, windowEnd: Range<Double>, offset: Int, limit: Int) async throws
    -> DayPayloads
  {
    let (low, high) = (windowEnd.lowerBound, windowEnd.upperBound)
    var total = 0
    let counted = try await client.query(
      """
      SELECT COUNT(*) FROM measurements WHERE device_id = \(deviceId) AND window_end >= \(low) AND window_end < \(high)
      """, logger: logger)
    for try await count in counted.decode(Int64.self) { total = Int(count) }
    let rows = try await client.query(
      """
      SELECT payload::text FROM measurements WHERE device_id = \(deviceId) AND window_end >= \(low)
        AND window_end < \(high)
      ORDER BY window_end, id LIMIT \(Int64(max(0, limit))) OFFSET \(Int64(max(0, offset)))
      """, logger: logger)
    var payloads: [String] = []
    for try await payload in rows.decode(String.self) { payloads.append(payload) }
    return DayPayloads(payloads: payloads, total: total)
  }

  public func deviceStates(limit: Int) async throws -> DeviceStates {
    let rows = try await client.query(
      """
      SELECT device_id, last_upload_at, outbox_pending, outbox_quarantined, latest_window_end, latest_level, latest_hrv
      FROM devices ORDER BY device_id LIMIT \(Int64(max(0, limit)))
      """, logger: logger)
    var states: [DeviceState] = []
    for try await (device, upload, pending, quarantined, windowEnd, level, hrv) in rows.decode(
      (String, Double?, Int64?, Int64?, Double?, Double?, Double?).self)
    {
      states.append(DeviceState(
        deviceId: device, lastUploadAt: upload, outboxPending: pending.map { Int($0) },
        outboxQuarantined: quarantined.map { Int($0) }, latestWindowEnd: windowEnd, latestLevel: level,
        latestHrvMs: hrv))
    }
    var total = 0
    for try await count in try await client.query("SELECT COUNT(*) FROM devices", logger: logger).decode(Int64.self) {
      total = Int(count)
    }
    return DeviceStates(states: states, total: total)
  }
}
