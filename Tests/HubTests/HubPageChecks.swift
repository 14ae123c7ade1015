import DayReport
import Foundation
import HTTPTypes
@testable import Hub
import Hummingbird
import HummingbirdTesting
import NIOCore
import StressModel
import SyncTestSupport
import SyncWire
import Testing

/// The pages' reads through the real router, on every backend: the fleet paged, sorted and counted, the
/// quarantine a device reports, one window per trend slot, a day drawn a page at a time, the week, the gauges.
enum HubPageCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case fleetIsPagedSortedAndCounted
  case quarantineReportedByTheDeviceIsShownAndBounded
  case trendsTakeTheNewestWindowOfEachSlot
  case aDayOfManyRowsIsDrawnAPageAtATime
  case weekShowsEachQuarterHour
  case metricsCarryPerDeviceGaugesWithinTheLimit

  var testDescription: String { rawValue }

  func run(on storage: any HubStorage) async throws {
    var options = HubOptions()
    options.metricsDeviceLimit = 3
    try await HubCheckContext.run(on: storage, options: options) { context in try await body(context) }
  }

  /// A scored row of `device` ending `age` seconds before `now` at `level`, HRV `hrv`.
  static func row(_ device: String, index: Int, now: Double, age: Double, level: Double, hrv: Double = 40) throws
    -> MeasurementRecord
  {
    var row = try MeasurementFixtures.records(device: device, count: 1, salt: UInt64(index))[0]
    row.id = MeasurementFixtures.uuid(device: device, index: index, salt: 7)
    row.windowEnd = now - age
    row.windowStart = row.windowEnd - 60
    row.modifiedAt = row.windowEnd
    row.stressLevel = level
    row.category = StressCategory(level: level)
    row.sdnnMs = hrv
    row.quality = .good
    return row
  }

  private func body(_ context: HubCheckContext) async throws {
    let (api, storage, device) = (context.api, context.storage, context.device)
    let now = Date().timeIntervalSince1970

    switch self {
    case .fleetIsPagedSortedAndCounted:
      // Given five devices of one prefix with levels, HRVs, ages and backlogs of their own, and one never heard from
      let prefix = device + "-f"
      let levels: [(Double, Double, Double, Int, Int)] = [  // level, HRV, age, pending, quarantined
        (10, 70, 30, 0, 0), (90, 15, 30, 400, 2), (55, 30, 7_200, 5, 0), (30, 50, 60, 0, 9), (80, 20, 120, 1, 0),
      ]
      for (index, (level, hrv, age, pending, quarantined)) in levels.enumerated() {
        let id = "\(prefix)\(index)"
        let token = try await HubTokens.create(deviceId: id, storage: storage, now: now)
        let response = try await api.ingest(
          IngestRequest(
            deviceId: id, records: [try Self.row(id, index: index, now: now, age: age, level: level, hrv: hrv)],
            outboxPending: pending, outboxQuarantined: quarantined),
          auth: .token(token))
        #expect(response.status == .ok)
      }
      _ = try await HubTokens.create(deviceId: "\(prefix)9", storage: storage, now: now)
      let mine = { (page: String) in
        page.components(separatedBy: "<tr data-device=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
          .filter { $0.hasPrefix(prefix) }
      }
      // When the reader sorts by stress, by HRV, by quiet and by backlog
      let byStress = mine(try await api.get("/devices?sort=stress&limit=500").text)
      #expect(byStress == ["1", "4", "2", "3", "0", "9"].map { prefix + $0 })
      let byHRV = mine(try await api.get("/devices?sort=hrv&limit=500").text)
      #expect(byHRV == ["1", "4", "2", "3", "0", "9"].map { prefix + $0 })
      let reversed = mine(try await api.get("/devices?sort=stress&dir=desc&limit=500").text)
      #expect(reversed == ["0", "3", "2", "4", "1", "9"].map { prefix + $0 })
      let byQuiet = mine(try await api.get("/devices?sort=quiet&limit=500").text)
      #expect(byQuiet == ["9", "2", "4", "3", "0", "1"].map { prefix + $0 })
      let byBacklog = mine(try await api.get("/devices?sort=backlog&limit=500").text)
      #expect(Array(byBacklog.prefix(3)) == ["1", "3", "2"].map { prefix + $0 })
      // Then the whole fleet is counted on every page, and a page holds at most `limit` rows
      let page = try await api.get("/devices?limit=2&sort=stress&page=2")
      #expect(page.status == .ok)
      #expect(page.text.components(separatedBy: "<tr data-device=").count - 1 == 2)
      let totals = try await storage.devicePage(DevicePageRequest(
        limit: 1, notAfter: now + 300, staleBefore: now - 600))
      #expect(page.text.contains("Devices 3-4 of \(FleetPage.count(totals.total, "device"))"))
      #expect(page.text.contains("rel=\"prev\"") && page.text.contains("rel=\"next\""))
      #expect(totals.devices.count == 1 && totals.total >= 7)
      #expect(totals.pendingRows >= 406 && totals.quarantinedRows >= 11)
      let pending = FleetPage.count(totals.pendingRows, "row")
      #expect(page.text.contains("\(pending) pending, \(totals.quarantinedRows) quarantined"))
      // The live part alone, for the page script
      let live = try await api.get("/devices?part=live&sort=stress&limit=2")
      #expect(live.text.hasPrefix("<div class=\"fleet\"") && !live.text.contains("<html"))
      #expect(try await api.get("/devices?sort=mood").status == .badRequest)
      #expect(try await api.get("/devices?limit=501").status == .badRequest)
      #expect(try await api.get("/devices?page=0").status == .badRequest)

    case .quarantineReportedByTheDeviceIsShownAndBounded:
      let rows = [try Self.row(device, index: 1, now: now, age: 20, level: 40, hrv: 33)]
      let stored = try await api.ingest(
        IngestRequest(deviceId: device, records: rows, outboxPending: 12, outboxQuarantined: 7))
      #expect(stored.status == .ok)
      let page = try await api.get("/devices?limit=500").text
      let row = page.components(separatedBy: "data-device=\"\(device)\"").dropFirst().first ?? ""
      #expect(row.contains("12 rows pending · 7 quarantined"))
      #expect(row.contains("33 ms") && row.contains("40 / 100"))
      #expect(row.contains("<svg class=\"trend trend-spark\""))
      let refused = try await api.ingest(
        IngestRequest(deviceId: device, records: rows, outboxQuarantined: SyncAPI.maxOutboxPending + 1))
      #expect(refused.status == .unprocessableContent)
      #expect(refused.text.contains("outbox_quarantined must be within"))

    case .trendsTakeTheNewestWindowOfEachSlot:
      // Given windows every 20 s over 30 minutes, and a second device with one window
      let start = (now / 300).rounded(.down) * 300 - 1_800
      var rows: [MeasurementRecord] = []
      for index in 0..<90 {
        var row = try Self.row(device, index: index, now: now, age: 0, level: Double(index), hrv: 100 - Double(index))
        row.windowEnd = start + Double(index) * 20 + 10
        row.windowStart = row.windowEnd - 60
        row.modifiedAt = row.windowEnd
        if index == 44 {
          row.quality = .noContact
          (row.stressLevel, row.category) = (nil, nil)
        }
        rows.append(row)
      }
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      let buckets = TrendBuckets(from: start - 300, step: 300, count: 8)
      let trends = try await storage.trends(deviceIds: [device, device + "-none"], buckets: buckets)
      // Then each 5-minute slot gives its newest window: index 14, 29, 44 (not scored), 59, 74, 89
      let points = trends[device] ?? []
      #expect(points.map(\.bucket) == [1, 2, 3, 4, 5, 6])
      #expect(points.map(\.windowEnd) == [14, 29, 44, 59, 74, 89].map { rows[$0].windowEnd })
      #expect(points.map(\.stressLevel) == [14, 29, nil, 59, 74, 89])
      #expect(points[2].quality == .noContact && points[2].category == nil)
      #expect(points[1].category == .mild && points[1].hrvMs == 71)
      #expect(trends[device + "-none"]?.isEmpty ?? true)

    case .aDayOfManyRowsIsDrawnAPageAtATime:
      let rows = try MeasurementFixtures.records(device: device, count: 250)
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      let day = LocalDay.containing(epochSeconds: rows[0].windowEnd)
      let inDay = rows.filter { $0.windowEnd >= day.start && $0.windowEnd < day.end }
      let first = try await storage.dayPayloads(deviceId: device, windowEnd: day.start..<day.end, offset: 0, limit: 100)
      #expect(first.total == inDay.count && first.payloads.count == min(100, inDay.count))
      let last = try await storage.dayPayloads(deviceId: device, windowEnd: day.start..<day.end, offset: 200, limit: 100)
      #expect(last.payloads.count == max(0, inDay.count - 200))
      #expect(try StoredPayload.decode(first.payloads[0]) == inDay[0])
      // The page says which rows it draws and links the others (a page of 100 rows here)
      var options = HubOptions()
      options.dayPageRows = 100
      try await HubCheckContext.run(on: storage, options: options) { small in
        let page = try await small.api.get("/devices/\(device)/days/\(day)?page=2").text
        #expect(page.contains("This day holds \(inDay.count) rows: this page draws rows 101-200"))
        #expect(page.contains("<strong aria-current=\"page\">2</strong>"))
        let svg = try await small.api.get("/devices/\(device)/days/\(day).svg?page=1").text
        #expect(svg == DayReport(records: Array(inDay.prefix(100)), day: day).svg())
      }
      #expect(try await api.get("/devices/\(device)/days/\(day)?zoom=week").status == .badRequest)

    case .weekShowsEachQuarterHour:
      let rows = try MeasurementFixtures.records(device: device, count: 120)
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      let day = LocalDay.containing(epochSeconds: rows[0].windowEnd)
      let page = try await api.get("/devices/\(device)/weeks/\(day)")
      #expect(page.status == .ok)
      // Each quarter-hour shows the category of its newest window
      let buckets = WeekView.buckets(WeekView.days(containing: day))
      let newest = Dictionary(grouping: rows) { buckets.bucket(of: $0.windowEnd) ?? -1 }
        .compactMapValues { $0.max { $0.windowEnd < $1.windowEnd } }
      let categories = Set(newest.values.map { $0.category?.rawValue ?? "unscored" })
      #expect(!categories.isEmpty)
      for category in categories { #expect(page.text.contains("data-kind=\"\(category)\""), "\(category)") }
      #expect(page.text.contains("<a href=\"/devices/\(device)/days/\(day)\">"))
      #expect(try await api.get("/devices/\(device)/weeks/2026-02-30").status == .notFound)

    case .metricsCarryPerDeviceGaugesWithinTheLimit:
      // A device whose id sorts first, so it is among the three with gauges
      let first = "0-" + device
      let token = try await HubTokens.create(deviceId: first, storage: storage, now: now)
      let rows = [try Self.row(first, index: 3, now: now, age: 90, level: 62.5, hrv: 28)]
      _ = try await api.ingest(
        IngestRequest(deviceId: first, records: rows, outboxPending: 4, outboxQuarantined: 2), auth: .token(token))
      let text = try await api.get("/metrics").text
      let lines = text.split(separator: "\n").map(String.init)
      func value(_ name: String) -> Double? {
        lines.first { $0.hasPrefix("\(name){device=\"\(first)\"} ") }.flatMap { Double($0.split(separator: " ")[1]) }
      }
      let states = try await storage.deviceStates(limit: 3)
      #expect(states.states.contains { $0.deviceId == first })
      #expect(value("stressmon_hub_device_stress_level") == 62.5)
      #expect(value("stressmon_hub_device_hrv_ms") == 28)
      #expect(value("stressmon_hub_device_outbox_pending_rows") == 4)
      #expect(value("stressmon_hub_device_outbox_quarantined_rows") == 2)
      let age = try #require(value("stressmon_hub_device_last_window_age_seconds"))
      #expect(age >= 89 && age < 200)
      // At most three devices carry gauges; the rest are counted
      let series = lines.filter { $0.hasPrefix("stressmon_hub_device_outbox_pending_rows{") }
      #expect(series.count <= 3)
      #expect(lines.contains("stressmon_hub_devices \(states.total)"))
      #expect(lines.contains("stressmon_hub_device_gauges_omitted \(max(0, states.total - 3))"))
      #expect(lines.contains("# TYPE stressmon_hub_device_stress_level gauge"))
    }
  }
}
