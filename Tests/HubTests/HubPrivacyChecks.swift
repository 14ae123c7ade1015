import Foundation
import HTTPTypes
import Hub
import Hummingbird
import HummingbirdTesting
import NIOCore
import SyncTestSupport
import SyncWire
import Testing

/// Issue 14's "Fix" checks that storage touches, run on every backend like `HubAPICheck`: reads need a
/// credential of the right kind and device, tokens are listed and revoked, a device is deleted with its rows
/// and feed numbers are never reused, times from the future are refused, every field is bounded.
enum HubPrivacyCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case readsWithoutATokenAre401
  case readsNeedAReaderOfThatDevice
  case kioskKeyOpensOnlyItsKioskPage
  case revokedTokenIs401AndListShowsLastUse
  case deletedDeviceLosesRowsAndTokensAndFeedNumbersAreNotReused
  case timesAheadOfTheHubClockAreRejected
  case aFutureRowNeverShowsAsLatest
  case everyFieldIsBounded
  case readsAreRateLimitedPerToken

  var testDescription: String { rawValue }

  func run(on storage: any HubStorage) async throws {
    let options = self == .readsAreRateLimitedPerToken ? HubOptions(readRate: 0.01, readBurst: 3) : HubOptions()
    try await HubCheckContext.run(on: storage, options: options) { context in try await body(context) }
  }

  private func body(_ context: HubCheckContext) async throws {
    let (api, storage, device) = (context.api, context.storage, context.device)
    let rows = try MeasurementFixtures.records(device: device, count: 20, salt: UInt64(device.hashValue.magnitude))
    let now = Date().timeIntervalSince1970
    let reads = [
      SyncAPI.feedPath, "\(SyncAPI.feedPath)?device=\(device)", SyncAPI.latestPath(device: device), "/kiosk/\(device)",
      "/kiosk/\(device)/panel", "/devices", "/devices/\(device)/days/2026-01-01", "/metrics",
    ]

    switch self {
    case .readsWithoutATokenAre401:
      for path in reads {
        let response = try await api.get(path, auth: .none)
        #expect(response.status == .unauthorized, "\(path)")
        #expect(response.headers[.wwwAuthenticate] != nil, "\(path)")
        #expect(!response.text.contains(device), "\(path) must not show the device's data")
      }
      // the hub's own pages ask a browser for the token; the API asks for a bearer token
      #expect(try await api.get("/devices", auth: .none).headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
      #expect(try await api.get(SyncAPI.feedPath, auth: .none).headers[.wwwAuthenticate] == "Bearer")
      #expect(try await api.get(SyncAPI.healthPath, auth: .none).status == .ok)
      #expect(try await api.get("/openapi.yaml", auth: .none).status == .ok)

    case .readsNeedAReaderOfThatDevice:
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      // A device token only writes
      for path in reads {
        let response = try await api.get(path, auth: .token(api.token))
        #expect(response.status == .forbidden, "\(path)")
        #expect(try response.decoded(ErrorBody.self).error == "wrong_token_kind", "\(path)")
      }
      // A reader of another device reads nothing of this one
      let other = try await HubTokens.create(kind: .reader, deviceId: device + "-x", storage: storage, now: now).token
      for path in [SyncAPI.latestPath(device: device), "\(SyncAPI.feedPath)?device=\(device)", "/kiosk/\(device)"] {
        #expect(try await api.get(path, auth: .token(other)).status == .forbidden, "\(path)")
      }
      let otherFeed = try await api.get(SyncAPI.feedPath, auth: .token(other)).decoded(FeedPage.self)
      #expect(otherFeed.rows.isEmpty, "a one-device reader's feed holds only its device")
      #expect(try await api.get("/metrics", auth: .token(other)).status == .forbidden)
      // A reader of this device reads it, and its feed without naming it
      let own = try await HubTokens.create(kind: .reader, deviceId: device, storage: storage, now: now).token
      #expect(try await api.get(SyncAPI.feedPath, auth: .token(own)).decoded(FeedPage.self).rows == rows)
      #expect(try await api.get(SyncAPI.latestPath(device: device), auth: .token(own)).status == .ok)
      let fleet = try await api.get("/devices", auth: .token(own)).text
      #expect(fleet.contains("data-device=\"\(device)\"") && !fleet.contains("data-device=\"\(device)-x\""))
      // A reader token cannot upload
      let upload = try await api.ingest(IngestRequest(deviceId: device, records: rows), auth: .token(own))
      #expect(upload.status == .forbidden)

    case .kioskKeyOpensOnlyItsKioskPage:
      let key = try await HubTokens.create(kind: .kiosk, deviceId: device, storage: storage, now: now).token
      let page = try await api.get("/kiosk/\(device)?key=\(key)", auth: .none)
      #expect(page.status == .ok)
      #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
      #expect(
        page.text.contains("data-refresh=\"/kiosk/\(device)/panel?key=\(key)\""), "the page's refresh must carry its key")
      #expect(try await api.get("/kiosk/\(device)/panel?key=\(key)", auth: .none).status == .ok)
      #expect(try await api.get("/kiosk/\(device)-x?key=\(key)", auth: .none).status == .forbidden)
      #expect(try await api.get("\(SyncAPI.latestPath(device: device))?key=\(key)", auth: .none).status == .forbidden)
      #expect(try await api.get("/devices?key=\(key)", auth: .none).status == .forbidden)
      #expect(try await api.get("/kiosk/\(device)?key=\(String(repeating: "0", count: 64))", auth: .none).status == .unauthorized)

    case .revokedTokenIs401AndListShowsLastUse:
      let created = try await HubTokens.create(kind: .reader, deviceId: device, storage: storage, now: now)
      let before = try await storage.tokens().first { $0.id == created.id }
      #expect(before?.kind == .reader && before?.deviceId == device && before?.lastUsedAt == nil)
      #expect(created.id == HubTokens.id(forHash: HubTokens.hash(created.token)))
      #expect(try await api.get(SyncAPI.latestPath(device: device), auth: .token(created.token)).status == .ok)
      // The last use is written in the background (a read never waits for a write): it lands within seconds
      var used: TokenInfo?
      for _ in 0..<200 {
        used = try await storage.tokens().first { $0.id == created.id }
        if used?.lastUsedAt != nil { break }
        try await Task.sleep(for: .milliseconds(25))
      }
      #expect(used?.lastUsedAt != nil && (used?.lastUsedAt ?? 0) >= now - 5)
      #expect(try await storage.revokeToken(id: created.id))
      #expect(try await !storage.revokeToken(id: created.id))
      #expect(try await api.get(SyncAPI.latestPath(device: device), auth: .token(created.token)).status == .unauthorized)
      #expect(try await storage.tokens().allSatisfy { $0.id != created.id })

    case .deletedDeviceLosesRowsAndTokensAndFeedNumbersAreNotReused:
      // Given two devices, the second one's rows holding the newest feed numbers
      let leaver = device + "-leaves"
      let leaverToken = try await HubTokens.create(deviceId: leaver, storage: storage, now: now)
      let leaverRows = try MeasurementFixtures.records(device: leaver, count: 30, salt: 7)
      _ = try await api.ingest(IngestRequest(deviceId: device, records: Array(rows.prefix(10))))
      _ = try await api.ingest(IngestRequest(deviceId: leaver, records: leaverRows), auth: .token(leaverToken))
      // A reader of every device that has read the whole feed so far
      var seen: Int64 = 0
      while true {
        let page = try await storage.feed(deviceId: nil, after: seen, limit: 1000)
        seen = page.lastSequence
        if !page.hasMore { break }
      }
      // When the person leaves
      let deletion = try await storage.deleteDevice(leaver)
      #expect(deletion == DeviceDeletion(rows: 30, tokens: 1, known: true))
      #expect(try await storage.count(deviceId: leaver) == 0)
      #expect(try await storage.devices(notAfter: now + 600).allSatisfy { $0.deviceId != leaver })
      #expect(try await api.ingest(IngestRequest(deviceId: leaver, records: leaverRows), auth: .token(leaverToken)).status == .unauthorized)
      // Then new rows get numbers past every number handed out before: a reader at `seen` misses nothing
      _ = try await api.ingest(IngestRequest(deviceId: device, records: Array(rows.suffix(10))))
      let after = try await storage.feed(deviceId: nil, after: seen, limit: 1000)
      #expect(after.rows.map(\.id) == rows.suffix(10).map(\.id))
      #expect(try await storage.deleteDevice(leaver) == DeviceDeletion(rows: 0, tokens: 0, known: false))

    case .timesAheadOfTheHubClockAreRejected:
      var batch = Array(rows.prefix(4))
      batch[0].windowEnd = 3_976_300_000  // 2096
      batch[1].modifiedAt = 3_976_300_000
      batch[2].windowStart = now + 3_600
      batch[2].windowEnd = now + 3_660
      batch[3].modifiedAt = now + 60  // a clock a minute ahead is fine
      let results = try await api.ingest(IngestRequest(deviceId: device, records: batch)).decoded(IngestResponse.self).results
      #expect(results.map(\.status) == [.rejected, .rejected, .rejected, .accepted])
      #expect(results[0].reason?.contains("ahead of the hub's clock") == true)
      #expect(try await storage.count(deviceId: device) == 1)

    case .aFutureRowNeverShowsAsLatest:
      // A row stored before the hub checked clocks (straight into storage) must not pose as the latest
      var future = rows[1]
      future.windowStart = 3_976_300_000
      future.windowEnd = 3_976_300_060
      _ = try await storage.upsert(deviceId: device, records: [rows[0], future], receivedAt: now, outboxPending: nil)
      let latest = try await api.get(SyncAPI.latestPath(device: device)).decoded(LatestResponse.self)
      #expect(latest.record == rows[0])
      #expect(try await api.get("/kiosk/\(device)/panel").text.contains("data-stale=\"true\""))

    case .everyFieldIsBounded:
      var batch = Array(rows.prefix(6))
      batch[0].beats = Int.max
      batch[1].baselineHrvMs = -50
      batch[2].restingHeartRateBpm = -60
      batch[3].bootId = "boot\u{1B}[31m\n"
      batch[4].rejectedBeats = 100_000
      let results = try await api.ingest(IngestRequest(deviceId: device, records: batch)).decoded(IngestResponse.self).results
      #expect(results.map(\.status) == [.rejected, .rejected, .rejected, .rejected, .rejected, .accepted])
      #expect(results[0].reason?.contains("beats") == true)
      #expect(results[1].reason?.contains("baseline_hrv_ms") == true)
      #expect(results[2].reason?.contains("resting_heart_rate_bpm") == true)
      #expect(results[3].reason?.contains("boot_id") == true)
      for bad in [".", ".."] {
        #expect(try await api.get(SyncAPI.latestPath(device: bad)).status != .ok)
        await #expect(throws: HubStorageError.self) {
          try await HubTokens.create(deviceId: bad, storage: storage, now: now)
        }
      }
      let pending = try await api.ingest(IngestRequest(deviceId: device, records: [rows[9]], outboxPending: -1))
      #expect(pending.status == .unprocessableContent)

    case .readsAreRateLimitedPerToken:
      // A burst of 3 at 0.01 a second: the fourth read within 100 s is refused with Retry-After
      for _ in 0..<3 { #expect(try await api.get(SyncAPI.latestPath(device: device)).status == .ok) }
      let limited = try await api.get(SyncAPI.latestPath(device: device))
      #expect(limited.status == .tooManyRequests)
      #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
      // Another token has its own budget; devices keep uploading
      let other = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
      #expect(try await api.get(SyncAPI.latestPath(device: device), auth: .token(other)).status == .ok)
      #expect(try await api.ingest(IngestRequest(deviceId: device, records: rows)).status == .ok)
      #expect(context.metrics.text.contains("stressmon_hub_rate_limited_total"))
    }
  }
}

extension HubMetrics {
  var text: String { String(decoding: exposition(), as: UTF8.self) }
}
