import DayReport
import Foundation
import HTTPTypes
import Hub
import Hummingbird
import HummingbirdTesting
import NIOCore
import StressModel
import SyncTestSupport
import SyncWire
import Testing

/// Issue 14's "Operate" checks through the real router, on every backend: metrics by outcome, request ids, the
/// OpenAPI document, the fleet page and the day view.
enum HubOperateCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case metricsCountRowsByDeviceAndOutcome
  case everyAnswerCarriesARequestId
  case everyAnswerCarriesTheSecurityHeaders
  case openAPIDocumentIsServed
  case fleetPageShowsEveryDeviceAndFlagsQuietOnes
  case dayViewIsTheDayReportOfTheHubsRows

  var testDescription: String { rawValue }

  func run(on storage: any HubStorage) async throws {
    try await HubCheckContext.run(on: storage) { context in try await body(context) }
  }

  private func body(_ context: HubCheckContext) async throws {
    let (api, storage, device) = (context.api, context.storage, context.device)
    let rows = try MeasurementFixtures.records(device: device, count: 200, salt: UInt64(device.hashValue.magnitude))
    let now = Date().timeIntervalSince1970

    switch self {
    case .metricsCountRowsByDeviceAndOutcome:
      var batch = Array(rows.prefix(20))
      batch[4].stressLevel = 140
      _ = try await api.ingest(IngestRequest(deviceId: device, records: batch))
      var late = batch[0]
      late.modifiedAt -= 10
      _ = try await api.ingest(IngestRequest(deviceId: device, records: [late]))
      let response = try await api.get("/metrics")
      #expect(response.status == .ok)
      #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
      let lines = response.text.split(separator: "\n")
      func value(_ outcome: String) -> String? {
        lines.first { $0.contains("stressmon_hub_rows_total{") && $0.contains("device=\"\(device)\"")
          && $0.contains("outcome=\"\(outcome)\"") }?.split(separator: " ").last.map(String.init)
      }
      #expect(value("accepted") == "19")
      #expect(value("rejected") == "1")
      #expect(value("kept_newer") == "1")

    case .everyAnswerCarriesTheSecurityHeaders:
      let kiosk = try await HubTokens.create(kind: .kiosk, deviceId: device, storage: storage, now: now).token
      let nosniff = HTTPField.Name("X-Content-Type-Options")!
      let answers = [
        ("JSON", try await api.get(SyncAPI.healthPath)), ("401", try await api.get(SyncAPI.feedPath, auth: .none)),
        ("404", try await api.get("/v2/nothing")), ("YAML", try await api.get("/openapi.yaml")),
        ("kiosk page", try await api.get("/kiosk/\(device)?key=\(kiosk)", auth: .none)),
      ]
      for (name, answer) in answers {
        #expect(answer.headers[nosniff] == "nosniff", "\(name)")
        // Served as plain HTTP here (a TLS proxy in front sets its own HSTS): none from the hub
        #expect(answer.headers[HTTPField.Name("Strict-Transport-Security")!] == nil, "\(name)")
      }
      // Scripts only as files from the hub: the kiosk loads the page script, and no inline script may run
      let policy = try #require(answers[4].1.headers[.contentSecurityPolicy])
      let scripts = try #require(policy.split(separator: ";").first { $0.contains("script-src") })
      #expect(scripts.trimmingCharacters(in: .whitespaces) == "script-src 'self'", "\(policy)")
      #expect(answers[4].1.text.contains("<script src=\"/assets/hub.js\" defer></script>"))
      #expect(!answers[4].1.text.contains("<script>"))

    case .everyAnswerCarriesARequestId:
      let plain = try await api.get(SyncAPI.healthPath)
      let id = plain.headers[HTTPField.Name("X-Request-Id")!]
      #expect(id?.isEmpty == false)
      let refused = try await api.get(SyncAPI.feedPath, auth: .none)
      #expect(refused.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
      let traced = try await api.get(SyncAPI.healthPath, headers: [HTTPField.Name("X-Request-Id")!: "trace-42.a_b"])
      #expect(traced.headers[HTTPField.Name("X-Request-Id")!] == "trace-42.a_b")
      let hostile = try await api.get(SyncAPI.healthPath, headers: [HTTPField.Name("X-Request-Id")!: "x\"y z"])
      #expect(hostile.headers[HTTPField.Name("X-Request-Id")!] != "x\"y z")

    case .openAPIDocumentIsServed:
      let response = try await api.get("/openapi.yaml", auth: .none)
      #expect(response.status == .ok)
      #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
      #expect(response.text.hasPrefix("openapi: 3.1.0\n"))
      #expect(response.text.contains("maxItems: \(SyncAPI.maxBatchRows)"))

    case .fleetPageShowsEveryDeviceAndFlagsQuietOnes:
      // Given a device reporting now (high), one whose last window is two hours old, and one with a token only
      var fresh = rows[0]
      fresh.windowEnd = now - 30
      fresh.windowStart = now - 90
      fresh.modifiedAt = now - 29
      fresh.stressLevel = 88
      fresh.category = .high
      _ = try await api.ingest(IngestRequest(deviceId: device, records: [fresh], outboxPending: 12))
      let quietDevice = device + "-quiet"
      let quietToken = try await HubTokens.create(deviceId: quietDevice, storage: storage, now: now)
      var old = try MeasurementFixtures.records(device: quietDevice, count: 1, salt: 3)[0]
      old.windowEnd = now - 7_200
      old.windowStart = now - 7_260
      old.modifiedAt = now - 7_200
      _ = try await api.ingest(IngestRequest(deviceId: quietDevice, records: [old]), auth: .token(quietToken))
      let silentDevice = device + "-new"
      _ = try await HubTokens.create(deviceId: silentDevice, storage: storage, now: now)
      // When a reader opens the fleet page
      let page = try await api.get("/devices?limit=500").text
      // Then each device is there with its state
      let row = { (id: String) in page.components(separatedBy: "data-device=\"\(id)\"").dropFirst().first ?? "" }
      #expect(row(device).hasPrefix(" data-category=\"high\" data-quiet=\"false\""))
      #expect(row(device).contains("data-icon=\"square\" data-pattern=\"crosshatch\""))
      #expect(row(device).contains("12 rows") && row(device).contains("Reporting"))
      #expect(row(quietDevice).contains("data-quiet=\"true\"") && row(quietDevice).contains("Quiet for 2 h"))
      #expect(row(silentDevice).contains("data-category=\"none\"") && row(silentDevice).contains("No data yet") && row(silentDevice).contains("Silent"))
      #expect(row(silentDevice).contains("<td data-label=\"Last window\">never</td>"))
      // Ids of the icons are unique on the page
      let ids = page.components(separatedBy: " id=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
      #expect(Set(ids).count == ids.count)

    case .dayViewIsTheDayReportOfTheHubsRows:
      _ = try await api.ingest(IngestRequest(deviceId: device, records: rows))
      let day = LocalDay.containing(epochSeconds: rows[100].windowEnd)
      let ofDay = rows.filter { $0.windowEnd >= day.start && $0.windowEnd < day.end }
      let expected = DayReport(records: ofDay, day: day).svg()
      let svg = try await api.get("/devices/\(device)/days/\(day).svg")
      #expect(svg.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
      #expect(svg.text == expected, "the hub draws exactly what `stressmon report` draws from the same rows")
      let page = try await api.get("/devices/\(device)/days/\(day)")
      // The page draws the same rows zoomed to the measured span, without the picture's own title and summary
      let zoomed = DayReport(records: ofDay, day: day, options: .init(zoom: true, now: now, header: false)).svg()
      #expect(page.text.contains(zoomed.split(separator: "\n", maxSplits: 1)[1]))
      #expect(!page.text.contains("?key="), "a token given in a header is never written into links")
      let keyed = try await api.get("/devices/\(device)/days/\(day)?key=\(api.reader)", auth: .none)
      #expect(keyed.text.contains("/devices/\(device)/days/\(LocalDay.containing(epochSeconds: day.end))?key=\(api.reader)"))
      let redirect = try await api.get("/devices/\(device)")
      #expect(redirect.status == .seeOther)
      #expect(redirect.headers[.location] == "/devices/\(device)/days/\(LocalDay.containing(epochSeconds: rows.last!.windowEnd))")
      #expect(try await api.get("/devices/\(device)/days/2026-13-01").status == .notFound)
      #expect(try await api.get("/devices/\(device)/days/2026-1-01").status == .badRequest)
    }
  }
}
