import SQLite
import SyncWire

/// The pages' and gauges' reads (see `HubStorage`), each bounded: a page of devices from the `devices` table
/// (whose newest-window columns every upload refreshes), one index probe per trend slot, a page of a day.
extension SQLiteHubStorage {
  // MARK: - Kept on upload

  /// `(window_end, level, HRV)` of the device's newest window ending at or before `notAfter` (SQL expressions),
  /// level and HRV only when the window was scored: the columns `devices` keeps for sorting and the gauges.
  static func newestWindowSQL(device: String, notAfter: String) -> String {
    """
    SELECT m.window_end,
      CASE WHEN json_extract(m.payload, '$.quality') = 'good' THEN json_extract(m.payload, '$.stress_level') END,
      CASE WHEN json_extract(m.payload, '$.quality') = 'good' THEN json_extract(m.payload, '$.sdnn_ms') END
    FROM measurements m WHERE m.device_id = \(device) AND m.window_end <= \(notAfter)
    ORDER BY m.window_end DESC, m.id DESC LIMIT 1
    """
  }

  /// After an upload, in its transaction: the device's quarantine as it reported it, and its newest window.
  static func refreshDevice(_ connection: SQLiteConnection, deviceId: String, quarantined: Int?, receivedAt: Double)
    throws
  {
    try connection.query(
      """
      UPDATE devices SET outbox_quarantined = ?2, (latest_window_end, latest_level, latest_hrv) = (
        \(newestWindowSQL(device: "?1", notAfter: "?3")))
      WHERE device_id = ?1
      """,
      [.text(deviceId), quarantined.map { .integer(Int64($0)) } ?? .null, .real(receivedAt + SyncAPI.maxClockSkew)])
  }

  // MARK: - HubStorage: pages

  public func devicePage(_ request: DevicePageRequest) async throws -> DevicePage {
    let found = try await read { connection in
      var filter = ""
      var values: [SQLiteValue] = [.real(request.notAfter)]
      if let device = request.deviceId {
        filter = "WHERE d.device_id = ?2"
        values.append(.text(device))
      }
      var rows: [(String, Double, Double?, Int?, Int?, String?)] = []
      // The page is chosen from the devices table alone; only its rows then look up their newest window.
      let order = Self.orderSQL(request.order, descending: request.descending)
      try connection.query(
        """
        SELECT d.device_id, d.first_seen_at, d.last_upload_at, d.outbox_pending, d.outbox_quarantined,
          (SELECT payload FROM measurements m WHERE m.device_id = d.device_id AND m.window_end <= ?1
           ORDER BY m.window_end DESC, m.id DESC LIMIT 1)
        FROM (SELECT * FROM devices d \(filter) ORDER BY \(order)
          LIMIT \(max(0, request.limit)) OFFSET \(max(0, request.offset))) d
        ORDER BY \(order)
        """, values
      ) { row in
        rows.append((
          row.text(0) ?? "", row.double(1), row.optionalDouble(2), row.isNull(3) ? nil : row.int(3),
          row.isNull(4) ? nil : row.int(4), row.text(5)
        ))
      }
      var totals = (0, 0, 0, 0)
      try connection.query(
        """
        SELECT COUNT(*), COUNT(*) FILTER (WHERE latest_window_end IS NULL OR latest_window_end < ?1),
          COALESCE(SUM(outbox_pending), 0), COALESCE(SUM(outbox_quarantined), 0)
        FROM devices d \(filter)
        """, [.real(request.staleBefore)] + values.dropFirst()
      ) { totals = ($0.int(0), $0.int(1), $0.int(2), $0.int(3)) }
      return (rows, totals)
    }
    let devices = try found.0.map { device, firstSeen, lastUpload, pending, quarantined, payload in
      DeviceSummary(
        deviceId: device, firstSeenAt: firstSeen, lastUploadAt: lastUpload, outboxPending: pending,
        outboxQuarantined: quarantined, latest: try payload.map { try StoredPayload.decode($0) })
    }
    let (total, quiet, pending, quarantined) = found.1
    return DevicePage(devices: devices, total: total, quiet: quiet, pendingRows: pending, quarantinedRows: quarantined)
  }

  public func trends(deviceIds: [String], buckets: TrendBuckets) async throws -> [String: [TrendPoint]] {
    guard buckets.count > 0, buckets.step > 0, !deviceIds.isEmpty else { return [:] }
    return try await read { connection in
      var trends: [String: [TrendPoint]] = [:]
      for device in deviceIds {
        var points: [TrendPoint] = []
        // One index probe per slot: the slot's newest window, however many rows the slot holds.
        try connection.query(
          """
          WITH RECURSIVE slot(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM slot WHERE k + 1 < ?4)
          SELECT slot.k, m.window_end, json_extract(m.payload, '$.stress_level'), json_extract(m.payload, '$.sdnn_ms'),
            json_extract(m.payload, '$.quality')
          FROM slot JOIN measurements m ON m.rowid = (
            SELECT rowid FROM measurements WHERE device_id = ?1
              AND window_end >= ?2 + slot.k * ?3 AND window_end < ?2 + (slot.k + 1) * ?3
            ORDER BY window_end DESC LIMIT 1)
          ORDER BY slot.k
          """, [.text(device), .real(buckets.from), .real(buckets.step), .integer(Int64(buckets.count))]
        ) { row in
          points.append(TrendPoint(
            bucket: row.int(0), windowEnd: row.double(1), stressLevel: row.optionalDouble(2),
            hrvMs: row.optionalDouble(3), quality: TrendPoint.quality(row.text(4))))
        }
        trends[device] = points
      }
      return trends
    }
  }

  public func dayPayloads(deviceId: String, windowEnd: Range<Double>, offset: Int, limit: Int) async throws
    -> DayPayloads
  {
    try await read { connection in
      let range: [SQLiteValue] = [.text(deviceId), .real(windowEnd.lowerBound), .real(windowEnd.upperBound)]
      var total = 0
      try connection.query(
        "SELECT COUNT(*) FROM measurements WHERE device_id = ? AND window_end >= ? AND window_end < ?", range
      ) { total = $0.int(0) }
      var payloads: [String] = []
      payloads.reserveCapacity(min(limit, total))
      try connection.query(
        """
        SELECT payload FROM measurements WHERE device_id = ? AND window_end >= ? AND window_end < ?
        ORDER BY window_end, id LIMIT ? OFFSET ?
        """, range + [.integer(Int64(max(0, limit))), .integer(Int64(max(0, offset)))]
      ) { payloads.append($0.text(0) ?? "") }
      return DayPayloads(payloads: payloads, total: total)
    }
  }

  public func deviceStates(limit: Int) async throws -> DeviceStates {
    try await read { connection in
      var states: [DeviceState] = []
      try connection.query(
        """
        SELECT device_id, last_upload_at, outbox_pending, outbox_quarantined, latest_window_end, latest_level,
          latest_hrv
        FROM devices ORDER BY device_id LIMIT ?
        """, [.integer(Int64(max(0, limit)))]
      ) { row in
        states.append(DeviceState(
          deviceId: row.text(0) ?? "", lastUploadAt: row.optionalDouble(1),
          outboxPending: row.isNull(2) ? nil : row.int(2),
          outboxQuarantined: row.isNull(3) ? nil : row.int(3), latestWindowEnd: row.optionalDouble(4),
          latestLevel: row.optionalDouble(5), latestHrvMs: row.optionalDouble(6)))
      }
      var total = 0
      try connection.query("SELECT COUNT(*) FROM devices", []) { total = $0.int(0) }
      return DeviceStates(states: states, total: total)
    }
  }

  // MARK: - Private

  /// ORDER BY for a fleet page: the key in its direction, devices without a value last, then the device id.
  static func orderSQL(_ order: DeviceOrder, descending: Bool) -> String {
    func by(_ column: String, naturallyDescending: Bool) -> String {
      let direction = naturallyDescending != descending ? "DESC" : "ASC"
      return "(\(column)) IS NULL, \(column) \(direction), d.device_id"
    }
    switch order {
    case .device: return "d.device_id \(descending ? "DESC" : "ASC")"
    case .stress: return by("d.latest_level", naturallyDescending: true)
    case .hrv: return by("d.latest_hrv", naturallyDescending: false)
    case .quiet:
      // Never heard from first, then the oldest newest window.
      let direction = descending ? "DESC" : "ASC"
      return "d.latest_window_end IS NOT NULL \(direction), d.latest_window_end \(direction), d.device_id"
    case .backlog:
      return by("COALESCE(d.outbox_pending, 0) + COALESCE(d.outbox_quarantined, 0)", naturallyDescending: true)
    }
  }
}
