import Foundation
import Hub
import Testing

@Suite("Hub API on SQLite")
struct HubAPISQLiteTests {
  @Test("the API contract holds on SQLite", arguments: HubAPICheck.allCases)
  func contract(_ check: HubAPICheck) async throws {
    let directory = NSTemporaryDirectory() + "hub-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let storage = try SQLiteHubStorage(path: directory + "/hub.sqlite")
    try await check.run(on: storage)
  }
}

@Suite("Hub API on PostgreSQL", .serialized)
struct HubAPIPostgresTests {
  @Test("the same API contract holds on PostgreSQL (throwaway cluster; skipped without PostgreSQL)")
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
      for check in HubAPICheck.allCases {
        try await check.run(on: storage)
      }
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
