import Foundation
import Hub
import TestSupport
import Testing

@Suite("stressmon-hub command")
struct HubCommandTests {
  @Test("token create prints a 64-hex token once and stores only its hash")
  func tokenCreate() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let result = try await offload { try CLIRunner.run(["token", "create", "--device", "desk-7", "--db", db], product: "stressmon-hub") }
    #expect(result.status == 0, "\(result.stderr)")
    let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
    let storage = try SQLiteHubStorage(path: db)
    #expect(try await storage.device(forTokenHash: HubTokens.hash(token)) == "desk-7")
    let file = try Data(contentsOf: URL(fileURLWithPath: db))
    #expect(file.range(of: Data(token.utf8)) == nil, "the token itself must not be stored")
  }

  @Test("a device id that is not path-safe is a usage error")
  func badDevice() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let result = try await offload {
      try CLIRunner.run(["token", "create", "--device", "desk/7", "--db", directory.file("hub.sqlite")], product: "stressmon-hub")
    }
    #expect(result.status == 64)
    #expect(result.stderr.contains("A-Z a-z 0-9"))
  }

  @Test("a missing TLS key or an unreadable certificate is refused before listening")
  func tlsOptions() async throws {
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let db = directory.file("hub.sqlite")
    let half = try await offload { try CLIRunner.run(["serve", "--db", db, "--tls-cert", "x.pem"], product: "stressmon-hub") }
    #expect(half.status == 64)
    let missing = try await offload {
      try CLIRunner.run(["serve", "--db", db, "--tls-cert", directory.file("no.pem"), "--tls-key", directory.file("no.key")], product: "stressmon-hub")
    }
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("certificate chain"))
  }
}
