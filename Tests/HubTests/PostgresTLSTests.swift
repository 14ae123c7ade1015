import Foundation
@testable import Hub
import PostgresNIO
import TestSupport
import Testing

/// The hub's PostgreSQL connection over TLS (sslmode, sslrootcert) and its password, kept off the command line.
@Suite("PostgreSQL over TLS", .serialized)
struct PostgresTLSTests {
  /// Whether the storage's own connection to the server is encrypted (pg_stat_ssl).
  static func encrypted(_ storage: PostgresHubStorage) async throws -> Bool {
    let rows = try await storage.client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: storage.logger)
    for try await ssl in rows.decode(Bool.self) { return ssl }
    return false
  }

  @Test("verify-full connects over TLS with the server's CA, refuses without it; disable stays plain")
  func sslModes() async throws {
    let directory = try TemporaryDirectory("pg-tls")
    defer { directory.remove() }
    guard try await offload({ try TLSSyncTests.makeCertificates(in: directory) }) else {
      print("SKIPPED PostgreSQL TLS test: /usr/bin/openssl not installed")
      return
    }
    let cluster: PostgresTestCluster
    switch try await offload({
      PostgresTestCluster.start(ssl: (directory.file("server.pem"), directory.file("server.key")))
    }) {
    case .available(let started):
      cluster = started
    case .unavailable(let reason):
      print("SKIPPED PostgreSQL TLS test: \(reason)")
      return
    }
    defer { cluster.stop() }
    let base = "postgres://postgres@127.0.0.1:\(cluster.port)/postgres"

    let verified = try PostgresHubStorage(url: base + "?sslmode=verify-full&sslrootcert=\(directory.file("ca.pem"))")
    try await verified.migrate()
    #expect(try await Self.encrypted(verified))
    try await verified.close()

    let unverified = try PostgresHubStorage(url: base + "?sslmode=require")
    try await unverified.migrate()
    #expect(try await Self.encrypted(unverified))
    try await unverified.close()

    // Without the CA the system trust store does not know the server: no connection, no data sent
    let untrusted = try PostgresHubStorage(url: base + "?sslmode=verify-full")
    await #expect(throws: (any Error).self) { try await untrusted.migrate() }
    try await untrusted.close()

    let plain = try PostgresHubStorage(url: base + "?sslmode=disable")
    try await plain.migrate()
    #expect(try await !Self.encrypted(plain))
    try await plain.close()
  }

  @Test("URL options: sslmode values, a password only outside argv, redaction")
  func urlOptions() throws {
    let options = try PostgresConnectionOptions(url: "postgres://hub@db.local:6543/stressmon?sslmode=verify-ca&sslrootcert=/etc/ca.pem")
    #expect(options.sslMode == .verifyCA && options.sslRootCert == "/etc/ca.pem" && options.port == 6543)
    #expect(try PostgresConnectionOptions(url: "postgres://hub@db/stressmon").sslMode == .prefer)
    #expect(throws: HubStorageError.self) { try PostgresConnectionOptions(url: "postgres://hub@db/x?sslmode=maybe") }
    #expect(throws: HubStorageError.self) {
      try PostgresConnectionOptions(url: "postgres://hub:secret@db/stressmon", allowPasswordInURL: false)
    }
    #expect(try PostgresConnectionOptions(url: "postgres://hub:s%40cret@db/stressmon").password == "s@cret")
    #expect(PostgresConnectionOptions.redacted("postgres://hub:secret@db/x") == "postgres://hub:***@db/x")
  }
}
