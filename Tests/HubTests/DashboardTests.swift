import AsyncHTTPClient
import Foundation
@testable import Hub
import NIOCore
import SyncTestSupport
import SyncWire
import TestSupport
import Testing

/// The example Grafana dashboard (packaging/grafana/stressmon-hub.json) asks only for metrics the hub exports: a
/// real hub on loopback is made to count everything the dashboard graphs (an upload, a page, a read over the rate,
/// a connection cut for its slowness), and every metric name in every query must be in its `/metrics`.
@Suite("Grafana dashboard")
struct DashboardTests {
  static let path = "packaging/grafana/stressmon-hub.json"

  /// The registry Hummingbird's request metrics reach through swift-metrics, bootstrapped once for this process
  /// (as `stressmon-hub serve` does; swift-metrics allows one bootstrap per process).
  static let metrics: HubMetrics = {
    let metrics = HubMetrics()
    metrics.bootstrapMetricsSystem()
    return metrics
  }()

  /// PromQL words that are not metric names.
  static let keywords: Set<String> = [
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf",
    "nan",
  ]

  /// The metric names a PromQL expression reads: identifiers that are not functions (followed by `(`), keywords,
  /// label names (inside `{…}` or `by (…)`), durations (`[5m]`) or numbers.
  static func metricNames(in expression: String) -> Set<String> {
    var text = expression
    for pattern in [#""[^"]*""#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#, #"\b(by|without|on|ignoring)\s*\([^)]*\)"#] {
      text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
    }
    var names: Set<String> = []
    let scanner = Array(text.unicodeScalars)
    var index = 0
    func isStart(_ c: Unicode.Scalar) -> Bool { CharacterSet.letters.contains(c) || c == "_" || c == ":" }
    func isPart(_ c: Unicode.Scalar) -> Bool { isStart(c) || CharacterSet.decimalDigits.contains(c) }
    while index < scanner.count {
      guard isStart(scanner[index]) else {
        index += 1
        continue
      }
      let start = index
      while index < scanner.count, isPart(scanner[index]) { index += 1 }
      let word = String(String.UnicodeScalarView(scanner[start..<index]))
      var next = index
      while next < scanner.count, scanner[next] == " " { next += 1 }
      let isCall = next < scanner.count && scanner[next] == "("
      if !isCall, !keywords.contains(word.lowercased()) { names.insert(word) }
    }
    return names
  }

  /// Every query of the dashboard: panel targets and template variables (`label_values(metric, label)`).
  static func queries(_ dashboard: [String: Any]) -> [String] {
    var found: [String] = []
    for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
      for target in panel["targets"] as? [[String: Any]] ?? [] {
        if let expression = target["expr"] as? String { found.append(expression) }
      }
    }
    let variables = (dashboard["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
    for variable in variables where variable["type"] as? String == "query" {
      if let definition = variable["definition"] as? String,
        let inner = definition.range(of: #"label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)"#, options: .regularExpression)
      {
        found.append(String(definition[inner].dropFirst("label_values(".count)))
      }
    }
    return found
  }

  @Test("the query parser finds metric names and nothing else")
  func parser() {
    #expect(Self.metricNames(in: #"sum by (outcome) (rate(stressmon_hub_rows_total{device=~"$device"}[5m]))"#)
      == ["stressmon_hub_rows_total"])
    #expect(Self.metricNames(in: "count(a_b > 600) or vector(0)") == ["a_b"])
    #expect(Self.metricNames(in: "histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))") == ["x_bucket"])
  }

  @Test("every metric the dashboard queries is on the hub's /metrics, and every device gauge is graphed")
  func dashboardNamesExist() async throws {
    let root = SharedData.repositoryRoot
    let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + Self.path))
    let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let panels = dashboard["panels"] as? [[String: Any]] ?? []
    #expect(panels.count >= 8)
    #expect(Set(panels.compactMap { $0["id"] as? Int }).count == panels.count, "panel ids are unique")
    #expect(panels.allSatisfy { ($0["targets"] as? [Any])?.isEmpty == false && $0["gridPos"] != nil })
    let queries = Self.queries(dashboard)
    let names = queries.reduce(into: Set<String>()) { $0.formUnion(Self.metricNames(in: $1)) }
    #expect(names.count >= 10)

    // A hub that has seen an upload, a page, a read past its rate and a connection too slow to send its headers
    let directory = try TemporaryDirectory("dashboard")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let now = Date().timeIntervalSince1970
    let device = try await HubTokens.create(deviceId: "desk-1", storage: storage, now: now)
    let reader = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
    let greedy = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
    let hub = LiveHub(
      storage: storage, options: HubOptions(readRate: 0.01, readBurst: 2),
      limits: ConnectionLimits(headerTimeout: 0.3), metrics: Self.metrics)
    try await hub.start()
    // One request per connection: the hub cuts a connection idle past its (short) header timeout
    var configuration = HTTPClient.Configuration()
    configuration.maximumUsesPerConnection = 1
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    func call(_ path: String, token: String, body: [UInt8]? = nil) async throws -> (Int, String) {
      var request = HTTPClientRequest(url: hub.baseURL + path)
      request.method = body == nil ? .GET : .POST
      request.headers.add(name: "Authorization", value: "Bearer \(token)")
      if let body {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
      }
      let response = try await client.execute(request, timeout: .seconds(10))
      let text = String(buffer: try await response.body.collect(upTo: 8 << 20))
      return (Int(response.status.code), text)
    }
    var exposition = ""
    do {
      let row = try kioskRecord(.mild, device: "desk-1", now: now, age: 30)
      let batch = IngestRequest(deviceId: "desk-1", records: [row], outboxPending: 3, outboxQuarantined: 1)
      let body = try JSONEncoder().encode(batch)
      #expect(try await call(SyncAPI.measurementsPath, token: device, body: Array(body)).0 == 200)
      for _ in 0..<3 { _ = try await call("/devices", token: greedy) }
      let slow = try RawSocket(port: hub.port)
      #expect(slow.closedByPeer(within: 5))
      let (status, text) = try await call("/metrics", token: reader)
      #expect(status == 200)
      exposition = text
    } catch {
      try? await client.shutdown()
      await hub.stop()
      throw error
    }
    try await client.shutdown()
    await hub.stop()
    let exported = Set(exposition.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
      line.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
    })
    for name in names.sorted() {
      #expect(exported.contains(name), "the dashboard queries \(name), which the hub does not export")
    }
    for gauge in DeviceGauges.gauges.map(\.name) {
      #expect(names.contains(gauge), "the dashboard does not graph \(gauge)")
    }
  }
}
