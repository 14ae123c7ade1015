import DayReport
import Foundation
@testable import Hub
import StressModel
import SyncTestSupport
import SyncWire
import TestSupport

/// Hubs holding the rows the browser tests and the README's screenshots need: real-recording rows
/// (`MeasurementFixtures`, HRV and levels from the project's own formulas) moved in time, their levels shifted by
/// a profile so that every category appears (the recording itself is a person at rest).
enum PageScenes {
  /// The fleet's devices: one per category, reporting now.
  static let names: [StressCategory: String] = [
    .relaxed: "desk-ana", .mild: "desk-ben", .moderate: "ward-3-bed-2", .high: "lab-pi-7",
  ]

  /// Windows every `step` seconds over `hours`, ending `endAge` seconds before `now`, levels following `profile`
  /// (hours before the end → level) plus the recording's own variation.
  static func session(
    device: String, now: Double, hours: Double, step: Double = 60, endAge: Double = 20, salt: UInt64 = 0,
    profile: (Double) -> Double
  ) throws -> [MeasurementRecord] {
    let count = Int(hours * 3600 / step)
    let base = try MeasurementFixtures.records(device: device, count: count, salt: salt)
    let scored = base.compactMap(\.stressLevel)
    let mean = scored.reduce(0, +) / Double(max(1, scored.count))
    return base.enumerated().map { index, original in
      var row = original
      row.windowEnd = now - endAge - Double(count - 1 - index) * step
      row.windowStart = row.windowEnd - 60
      row.modifiedAt = row.windowEnd
      if let level = original.stressLevel {
        let hoursBefore = (now - endAge - row.windowEnd) / 3600
        let shifted = StressLevel.clamp(profile(hoursBefore) + (level - mean) * 0.6)
        row.stressLevel = shifted
        row.category = StressCategory(level: shifted)
        // HRV moves against the level, as the stress formula has it.
        row.sdnnMs = original.sdnnMs.map { max(8, $0 - (shifted - level) * 0.5) }
      }
      return row
    }
  }

  /// A working day's profile: calm, a busier stretch `peakHours` before the end reaching `peak`.
  static func day(calm: Double, peak: Double, peakHours: Double) -> (Double) -> Double {
    { hoursBefore in
      let distance = abs(hoursBefore - peakHours)
      return distance < 1.2 ? calm + (peak - calm) * (1 - distance / 1.2) : calm
    }
  }

  /// The fleet: a device per category reporting now with six hours behind it, one quiet for three hours (its
  /// backlog on the device), one that never sent anything; tokens and a reader of all.
  static func fleet(_ directory: TemporaryDirectory, options: HubOptions = HubOptions()) async throws -> (LiveHub, String) {
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let now = Date().timeIntervalSince1970
    let plans: [StressCategory: (Double, Double, Double)] = [
      .relaxed: (12, 30, 2), .mild: (30, 48, 4), .moderate: (45, 70, 0.3), .high: (55, 92, 0.2),
    ]
    for (offset, category) in StressCategory.allCases.enumerated() {
      let device = names[category] ?? category.rawValue
      _ = try await HubTokens.create(deviceId: device, storage: storage, now: now - 86_400)
      let (calm, peak, at) = plans[category] ?? (20, 40, 1)
      var rows = try session(
        device: device, now: now, hours: 6, step: 120, salt: UInt64(offset),
        profile: day(calm: calm, peak: peak, peakHours: at))
      rows[rows.count - 1] = kioskRecord(rows[rows.count - 1], category, now: now, age: 40)
      for chunk in stride(from: 0, to: rows.count, by: 500) {
        _ = try await storage.upsert(
          deviceId: device, records: Array(rows[chunk..<min(rows.count, chunk + 500)]), receivedAt: now - 35,
          outboxPending: offset == 2 ? 37 : 0, outboxQuarantined: offset == 3 ? 2 : 0)
      }
    }
    _ = try await HubTokens.create(deviceId: "wear-zero-1", storage: storage, now: now - 86_400)
    var quiet = try session(
      device: "wear-zero-1", now: now, hours: 3, step: 120, endAge: 3 * 3_600 + 120, salt: 9,
      profile: day(calm: 28, peak: 55, peakHours: 1))
    quiet[quiet.count - 1] = kioskRecord(quiet[quiet.count - 1], .mild, now: now, age: 3 * 3_600 + 120)
    _ = try await storage.upsert(
      deviceId: "wear-zero-1", records: quiet, receivedAt: now - 3 * 3_600, outboxPending: 418, outboxQuarantined: 0)
    _ = try await HubTokens.create(deviceId: "kiosk-hall", storage: storage, now: now - 600)
    let reader = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
    let hub = LiveHub(storage: storage, options: options)
    try await hub.start()
    return (hub, reader)
  }

  /// A week of one device: the last whole calendar week (Monday to Sunday, all of it past whatever day today is), a
  /// session of a few hours on six of its days, the levels of each day's own shape. Returns that week's days.
  static func week(device: String, storage: any HubStorage, now: Double) async throws -> [LocalDay] {
    let days = WeekView.days(containing: LocalDay.containing(epochSeconds: now - 7 * 86_400))
    for (index, day) in days.enumerated() where index != 2 {
      let end = day.instant(hour: 9 + index % 5 + 6)
      let hours = index == 0 ? 5.0 : 4 + Double(index % 3) * 2
      let rows = try session(
        device: device, now: end, hours: hours, step: 60, endAge: 0,
        salt: UInt64(index), profile: Self.day(calm: 15 + Double(index) * 4, peak: 60 + Double(index) * 5, peakHours: 1.5))
      for chunk in stride(from: 0, to: rows.count, by: 500) {
        _ = try await storage.upsert(
          deviceId: device, records: Array(rows[chunk..<min(rows.count, chunk + 500)]), receivedAt: now,
          outboxPending: 0)
      }
    }
    return days
  }
}
