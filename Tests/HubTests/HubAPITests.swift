import Foundation
import Hub
import Testing

@Suite("Hub API on SQLite")
struct HubAPISQLiteTests {
  static func storage(_ body: (SQLiteHubStorage) async throws -> Void) async throws {
    let directory = NSTemporaryDirectory() + "hub-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let storage = try SQLiteHubStorage(path: directory + "/hub.sqlite")
    try await body(storage)
    try await storage.close()
  }

  @Test("the API contract holds on SQLite", arguments: HubAPICheck.allCases)
  func contract(_ check: HubAPICheck) async throws {
    try await Self.storage { try await check.run(on: $0) }
  }

  @Test("reads are private, devices deletable, clocks and fields bounded on SQLite", arguments: HubPrivacyCheck.allCases)
  func privacy(_ check: HubPrivacyCheck) async throws {
    try await Self.storage { try await check.run(on: $0) }
  }

  @Test("metrics, request ids, OpenAPI, fleet page and day view on SQLite", arguments: HubOperateCheck.allCases)
  func operate(_ check: HubOperateCheck) async throws {
    try await Self.storage { try await check.run(on: $0) }
  }

  @Test("the pages' paged, sorted and bounded reads and the gauges on SQLite", arguments: HubPageCheck.allCases)
  func pages(_ check: HubPageCheck) async throws {
    try await Self.storage { try await check.run(on: $0) }
  }
}

@Suite("Hub API on PostgreSQL", .serialized)
struct HubAPIPostgresTests {
  @Test("the same checks hold on PostgreSQL (throwaway cluster; skipped without PostgreSQL)")
  func contract() async throws {
    let cluster: PostgresTestCluster
    switch try await offload({ PostgresTestCluster.start() }) {
    case .available(let started):
      cluster = started
    case .unavailable(let reason):
      print("SKIPPED PostgreSQL tests: \(reason)")
      return
    }
    let storage = try PostgresHubStorage(url: cluster.url)
    do {
      for check in HubAPICheck.allCases { try await check.run(on: storage) }
      for check in HubPrivacyCheck.allCases { try await check.run(on: storage) }
      for check in HubOperateCheck.allCases { try await check.run(on: storage) }
      for check in HubPageCheck.allCases { try await check.run(on: storage) }
      // Two instances migrating at once (a fleet starting together) must not fail.
      let second = try PostgresHubStorage(url: cluster.url)
      async let a: Void = storage.migrate()
      async let b: Void = second.migrate()
      _ = try await (a, b)
      try await second.close()
    } catch {
      try? await storage.close()
      try await offload { cluster.stop() }
      throw error
    }
    try await storage.close()
    try await offload { cluster.stop() }
  }
}
