import Foundation
import Hub
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Sync
import SyncTestSupport
import SyncWire
import Testing

/// The hub's API contract as a list of checks, run against every storage backend (SQLite always, PostgreSQL
/// when a server can be started) through the real router.
enum HubAPICheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case healthReportsStorage
  case gzipBatchIsStoredOnceAndRetriesAreIdempotent
  case newerModifiedAtWinsAndALosingRowIsKeptNewer
  case wrongOrMissingTokenIs401AndStoresNothing
  case anotherDevicesIdIs403AndStoresNothing
  case oversizedBodiesAre413AndStoreNothing
  case malformedBodiesAre400Or422AndStoreNothing
  case invalidRowsAreRejectedOneByOne
  case rowIdOfAnotherDeviceIsRejected
  case feedPagesCoverEveryRowOnce
  case latestIsTheNewestWindow
  case unknownRouteIsJSON404AndWrongMethod405

  var testDescription: String { rawValue }

  func run(on storage: any HubStorage) async throws {
    try await HubCheckContext.run(on: storage) { context in try await body(context) }
  }

  private func body(_ context: HubCheckContext) async throws {
    let (api, storage, device) = (context.api, context.storage, context.device)
    let rows = try MeasurementFixtures.records(device: device, count: 500, salt: UInt64(device.hashValue.magnitude))
    func stored() async throws -> Int { try await storage.count(deviceId: device) }

    switch self {
    case .healthReportsStorage:
      let response = try await api.get(SyncAPI.healthPath)
      #expect(response.status == .ok)
      let health = try JSONDecoder().decode(HealthResponse.self, from: Data(buffer: response.body))
      #expect(health.status == "ok" && health.storage == storage.kind)

    case .gzipBatchIsStoredOnceAndRetriesAreIdempotent:
      let first = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      #expect(first.status == .ok)
      #expect(try first.decoded(IngestResponse.self).acceptedCount == 500)
      let before = try await storage.feed(deviceId: device, after: 0, limit: 1000)
      // A retry after a lost answer: same rows again.
      let again = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      #expect(try again.decoded(IngestResponse.self).acceptedCount == 500)
      #expect(try await stored() == 500)
      let after = try await storage.feed(deviceId: device, after: 0, limit: 1000)
      #expect(after.rows == rows)
      #expect(after.lastSequence == before.lastSequence, "an identical retry must not move rows in the feed")

    case .newerModifiedAtWinsAndALosingRowIsKeptNewer:
      var original = rows[0]
      _ = try await api.ingest(IngestRequest(deviceId: device, records: [original]))
      var newer = original
      newer.confidence = 0.123
      newer.modifiedAt += 60
      _ = try await api.ingest(IngestRequest(deviceId: device, records: [newer]))
      original.confidence = 0.999  // an older edit arriving late
      let late = try await api.ingest(IngestRequest(deviceId: device, records: [original]))
      // The hub says it kept its newer version: the device must not believe its change landed
      let result = try late.decoded(IngestResponse.self).results
      #expect(result.map(\.status) == [.keptNewer])
      #expect(result.first?.reason?.contains("newer version") == true)
      let feed = try await storage.feed(deviceId: device, after: 0, limit: 10)
      #expect(feed.rows == [newer])
      // The same id twice in one batch: the older copy is kept_newer too
      var twice = newer
      twice.modifiedAt += 10
      twice.confidence = 0.5
      let both = try await api.ingest(IngestRequest(deviceId: device, records: [twice, newer]))
      #expect(try both.decoded(IngestResponse.self).results.map(\.status) == [.accepted, .keptNewer])

    case .wrongOrMissingTokenIs401AndStoresNothing:
      let batch = IngestRequest(deviceId: device, records: rows)
      let wrong = try await api.ingest(batch, auth: .token(String(repeating: "f", count: 64)))
      #expect(wrong.status == .unauthorized)
      #expect(try wrong.decoded(ErrorBody.self).error == "unauthorized")
      let missing = try await api.ingest(batch, auth: .none)
      #expect(missing.status == .unauthorized)
      #expect(try missing.decoded(ErrorBody.self).message.contains("Authorization"))
      #expect(try await stored() == 0)

    case .anotherDevicesIdIs403AndStoresNothing:
      let other = try MeasurementFixtures.records(device: "someone-else", count: 3)
      let wrongBatch = try await api.ingest(IngestRequest(deviceId: "someone-else", records: other))
      #expect(wrongBatch.status == .forbidden)
      #expect(try wrongBatch.decoded(ErrorBody.self).message.contains("someone-else"))
      let mixed = try await api.ingest(IngestRequest(deviceId: device, records: Array(rows.prefix(5)) + other))
      #expect(mixed.status == .forbidden)
      #expect(try mixed.decoded(ErrorBody.self).error == "forbidden_device")
      #expect(try await stored() == 0)
      #expect(try await storage.count(deviceId: "someone-else") == 0)

    case .oversizedBodiesAre413AndStoreNothing:
      let tooMany = try MeasurementFixtures.records(device: device, count: 501)
      let rowsOver = try await api.ingest(IngestRequest(deviceId: device, records: tooMany))
      #expect(rowsOver.status == .contentTooLarge)
      #expect(try rowsOver.decoded(ErrorBody.self).message.contains("at most 500"))
      let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: SyncAPI.maxBodyBytes + 1)
      let bytesOver = try await api.post(body: huge, gzip: false)
      #expect(bytesOver.status == .contentTooLarge)
      // A gzip bomb: 40 MB of spaces compress to ~40 kB and must not be inflated past the limit.
      var spaces = ByteBuffer(repeating: UInt8(ascii: " "), count: 40 * 1024 * 1024)
      let bomb = try await api.post(body: try spaces.compress(with: .gzip()), gzip: true)
      #expect(bomb.status == .contentTooLarge)
      #expect(try bomb.decoded(ErrorBody.self).message.contains("inflates"))
      #expect(try await stored() == 0)

    case .malformedBodiesAre400Or422AndStoreNothing:
      let notJSON = try await api.post(body: ByteBuffer(string: "{\"device_id\": \"\(device)\", records: ["), gzip: false)
      #expect(notJSON.status == .badRequest)
      #expect(try notJSON.decoded(ErrorBody.self).error == "malformed_json")
      var json = String(decoding: try JSONEncoder().encode(IngestRequest(deviceId: device, records: Array(rows.prefix(4)))), as: UTF8.self)
      json = json.replacingOccurrences(of: "\"stress_level\":", with: "\"stress_level\":\"high\",\"x\":")
      let wrongShape = try await api.post(body: ByteBuffer(string: json), gzip: false)
      #expect(wrongShape.status == .unprocessableContent)
      #expect(try wrongShape.decoded(ErrorBody.self).message.contains("records[0].stress_level"))
      let badGzip = try await api.post(body: ByteBuffer(bytes: [0x1F, 0x8B, 0x08, 0, 1, 2, 3, 4]), gzip: true)
      #expect(badGzip.status == .badRequest)
      // gzip is exactly one complete member: a second member (its rows would be dropped), bytes after the member,
      // or a member cut before its CRC and length are refused, not read as far as they go.
      let first = try SyncBody.encode(IngestRequest(deviceId: device, records: [rows[0]]))
      let second = try SyncBody.encode(IngestRequest(deviceId: device, records: [rows[1]]))
      for (name, body) in [
        ("two members", first + second), ("trailing garbage", first + Array("garbage".utf8)),
        ("no CRC and length", Array(first.dropLast(8))),
      ] {
        let answer = try await api.post(body: ByteBuffer(bytes: body), gzip: true)
        #expect(answer.status == .badRequest, "\(name)")
        #expect(try answer.decoded(ErrorBody.self).error == "malformed_body", "\(name)")
      }
      #expect(try await stored() == 0)
      let whole = try await api.post(body: ByteBuffer(bytes: first), gzip: true)
      #expect(whole.status == .ok)
      #expect(try await stored() == 1)

    case .invalidRowsAreRejectedOneByOne:
      var batch = Array(rows.prefix(10))
      batch[2].stressLevel = 140
      batch[7].clockSynchronised = false
      let response = try await api.ingest(IngestRequest(deviceId: device, records: batch))
      let results = try response.decoded(IngestResponse.self).results
      #expect(results.map(\.id) == batch.map(\.id))
      #expect(results.filter { $0.status == .rejected }.map(\.id) == [batch[2].id, batch[7].id])
      #expect(results[2].reason?.contains("outside 0-100") == true)
      #expect(try await stored() == 8)

    case .rowIdOfAnotherDeviceIsRejected:
      let ownerToken = try await HubTokens.create(deviceId: device + "-b", storage: storage, now: 1_767_225_600)
      var stolen = rows[0]
      _ = try await api.ingest(IngestRequest(deviceId: device, records: [stolen]))
      stolen.deviceId = device + "-b"
      stolen.modifiedAt += 100
      let response = try await api.ingest(IngestRequest(deviceId: device + "-b", records: [stolen]), auth: .token(ownerToken))
      let result = try response.decoded(IngestResponse.self).results
      #expect(result.first?.status == .rejected)
      #expect(result.first?.reason?.contains("another device") == true)
      #expect(try await storage.feed(deviceId: device, after: 0, limit: 5).rows == [rows[0]])
      #expect(try await storage.count(deviceId: device + "-b") == 0)

    case .feedPagesCoverEveryRowOnce:
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      var cursor = ""
      var seen: [MeasurementRecord] = []
      var pages = 0
      while true {
        let response = try await api.get("\(SyncAPI.feedPath)?device=\(device)&since=\(cursor)&limit=200")
        #expect(response.status == .ok)
        let page = try response.decoded(FeedPage.self)
        seen += page.rows
        cursor = page.nextCursor
        pages += 1
        if !page.hasMore || pages > 10 { break }
      }
      #expect(pages == 3)
      #expect(seen == rows)
      let bad = try await api.get("\(SyncAPI.feedPath)?limit=0")
      #expect(bad.status == .badRequest)

    case .latestIsTheNewestWindow:
      let none = try await api.get(SyncAPI.latestPath(device: device))
      #expect(try none.decoded(LatestResponse.self).record == nil)
      _ = try await api.ingest(IngestRequest(deviceId: device, records: Array(rows.prefix(50).reversed())))
      let latest = try await api.get(SyncAPI.latestPath(device: device))
      #expect(try latest.decoded(LatestResponse.self).record == rows[49])

    case .unknownRouteIsJSON404AndWrongMethod405:
      let response = try await api.get("/v2/nothing")
      #expect(response.status == .notFound)
      #expect(try response.decoded(ErrorBody.self).error == "not_found")
      // A path the hub has, asked with a method it does not answer: 405 with the methods it does
      let put = try await api.client.execute(uri: SyncAPI.healthPath, method: .put)
      #expect(put.status == .methodNotAllowed)
      #expect(put.headers[.allow] == "GET")
      let delete = try await api.client.execute(uri: SyncAPI.measurementsPath, method: .delete)
      #expect(delete.headers[.allow] == "GET, POST")
    }
  }
}
