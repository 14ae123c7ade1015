import Foundation
import Hub
import Hummingbird
import TestSupport
import Testing

/// `/openapi.yaml` kept true: openapi-spec-validator says it is valid OpenAPI 3.1, and schemathesis sends a live
/// hub requests made from it (valid and invalid, with and without tokens) and checks every answer against it:
/// status codes, content types, headers and body schemas. Both tools come from PyPI through scripts/openapi-venv;
/// without PyPI the test skips with one line.
@Suite("OpenAPI description", .serialized)
struct OpenAPITests {
  static let repository: String = {
    var url = URL(fileURLWithPath: CLIRunner.productsDirectory)
    while url.path.count > 1 && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
      url = url.deletingLastPathComponent()
    }
    return url.path
  }()

  static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws
    -> (status: Int32, output: String)
  {
    try runProgram(executable, arguments, in: directory)
  }

  @Test("the document is valid OpenAPI 3.1, and a live hub answers as it says (schemathesis)")
  func documentAndHubAgree() async throws {
    let venv = try await offload { try Self.run(Self.repository + "/scripts/openapi-venv", []) }
    guard venv.status == 0, let bin = venv.output.split(separator: "\n").last.map(String.init), bin.hasSuffix("/bin") else {
      print("SKIPPED OpenAPI test: scripts/openapi-venv could not install the tools from PyPI")
      return
    }
    let directory = try TemporaryDirectory("openapi")
    defer { directory.remove() }
    let document = try directory.write("openapi.yaml", OpenAPIDocument.yaml)
    let validation = try await offload { try Self.run(bin + "/openapi-spec-validator", [document]) }
    #expect(validation.status == 0, "\(validation.output.suffix(1500))")

    // A live hub with a device, its token and a reader; reads not rate-limited so every answer is a real one
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let now = Date().timeIntervalSince1970
    let device = try await HubTokens.create(deviceId: "api-desk", storage: storage, now: now)
    let reader = try await HubTokens.create(kind: .reader, deviceId: nil, storage: storage, now: now).token
    let hub = LiveHub(storage: storage, options: HubOptions(readRate: 10_000, readBurst: 10_000))
    try await hub.start()
    let common = [
      "run", document, "--url", hub.baseURL, "--checks", "all", "--max-examples", "20", "--seed", "14",
      "--workers", "1", "--request-timeout", "10", "--max-time", "15", "--suppress-health-check", "all",
      "--output-truncate", "true",
    ]
    let writes = try await offload {
      try Self.run(
        bin + "/schemathesis", common + ["--include-method", "POST", "-H", "Authorization: Bearer \(device)"],
        in: directory.path)
    }
    let reads = try await offload {
      try Self.run(
        bin + "/schemathesis", common + ["--include-method", "GET", "-H", "Authorization: Bearer \(reader)"],
        in: directory.path)
    }
    await hub.stop()
    #expect(writes.status == 0, "POST: \(writes.output.suffix(3000))")
    #expect(reads.status == 0, "GET: \(reads.output.suffix(3000))")
  }
}

@Suite("OpenAPI description matches the router")
struct OpenAPIRouteTests {
  /// `METHOD /path` of every operation in the document (paths at two spaces, methods at four).
  static func documentedOperations() -> Set<String> {
    var operations: Set<String> = []
    var path: String?
    for line in OpenAPIDocument.yaml.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
        path = String(line.dropFirst(2).dropLast())
      } else if line.hasPrefix("components:") {
        path = nil
      } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
        let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
        if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) { operations.insert("\(method) \(path)") }
      }
    }
    return operations
  }

  @Test("every route the hub serves is documented, and every documented operation is served")
  func sameOperations() async throws {
    let directory = try TemporaryDirectory("openapi-routes")
    defer { directory.remove() }
    let router = HubRoutes.router(storage: try SQLiteHubStorage(path: directory.file("hub.sqlite")))
    let served = Set(router.routes.map { "\($0.method) \($0.path)" })
    #expect(served == Self.documentedOperations())
    #expect(served.count >= 11)
  }
}
