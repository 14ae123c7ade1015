import AsyncHTTPClient
import Foundation
import Hub
import NIOSSL
import SyncTestSupport
import Sync
import TestSupport
import Testing

/// HTTPS between device and hub: a private CA made with openssl, the hub serving TLS itself.
@Suite("Sync over HTTPS", .serialized)
struct TLSSyncTests {
  /// A CA and a server certificate for `subjectAltName` (127.0.0.1) signed by it, in `directory`. False without
  /// openssl.
  static func makeCertificates(in directory: TemporaryDirectory, subjectAltName: String = "IP:127.0.0.1") throws -> Bool {
    try TestCertificates.make(in: directory, subjectAltName: subjectAltName)
  }

  /// A hub serving HTTPS with the certificate made in `directory`, device "tls-desk" with `rows` rows waiting in a
  /// file outbox, and the `stressmon sync --once` arguments that reach it (without `--ca-file`).
  static func httpsHub(_ directory: TemporaryDirectory, rows: Int) async throws
    -> (hub: LiveHub, storage: SQLiteHubStorage, sync: [String])
  {
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let token = try await HubTokens.create(deviceId: "tls-desk", storage: storage, now: Date().timeIntervalSince1970)
    let tokenFile = try directory.writePrivate("token", token)
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "tls-desk", count: rows))
    let tls = try HubTLSFiles(certificateChain: directory.file("server.pem"), privateKey: directory.file("server.key"))
      .configuration()
    let hub = LiveHub(storage: storage, tls: tls)
    try await hub.start()
    let sync = [
      "sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--token-file", tokenFile,
      "--backoff-base", "0.01", "--backoff-cap", "0.02", "--connect-timeout", "2",
    ]
    return (hub, storage, sync)
  }

  @Test("with --ca-file the device verifies the hub's certificate and syncs; without it nothing is sent")
  func privateCA() async throws {
    let directory = try TemporaryDirectory("tls")
    defer { directory.remove() }
    guard try await offload({ try Self.makeCertificates(in: directory) }) else {
      print("SKIPPED HTTPS test: /usr/bin/openssl not installed")
      return
    }
    let (hub, storage, common) = try await Self.httpsHub(directory, rows: 40)

    // Without the CA the system trust store does not know the hub: verification fails, nothing is uploaded
    let untrusted = try await runCLI(common)
    #expect(untrusted.status == 69)
    #expect(untrusted.stderr.contains("CERTIFICATE_VERIFY_FAILED") && untrusted.stderr.contains("--ca-file"), "\(untrusted.stderr)")
    #expect(!untrusted.stderr.contains("retrying"), "an untrusted certificate must not be retried")
    #expect(try await storage.count(deviceId: "tls-desk") == 0)

    // With the CA it syncs
    let trusted = try await runCLI(common + ["--ca-file", directory.file("ca.pem")])
    await hub.stop()
    #expect(trusted.status == 0, "\(trusted.stderr)")
    #expect(try await storage.count(deviceId: "tls-desk") == 40)
    #expect(hub.baseURL.hasPrefix("https://"))
  }

  @Test("https:// to a hub that serves plain HTTP: one line that says so, without BoringSSL's paths, no retries")
  func httpsToPlainHub() async throws {
    let directory = try TemporaryDirectory("tls-plain")
    defer { directory.remove() }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let token = try await HubTokens.create(deviceId: "plain-desk", storage: storage, now: Date().timeIntervalSince1970)
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "plain-desk", count: 3))
    let hub = LiveHub(storage: storage)
    try await hub.start()
    let result = try await runCLI([
      "sync", "--once", "--outbox", outbox, "--hub", "https://127.0.0.1:\(hub.port)", "--token-file",
      try directory.writePrivate("token", token), "--connect-timeout", "2",
    ])
    await hub.stop()
    #expect(result.status == 69)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("plain HTTP") && result.stderr.contains("--insecure-http"), "\(result.stderr)")
    #expect(!result.stderr.contains("--ca-file") && !result.stderr.contains(" at /"), "\(result.stderr)")
    #expect(try await storage.count(deviceId: "plain-desk") == 0)
  }

  @Test("TLS 1.0 and 1.1 handshakes are refused; TLS 1.2 and 1.3 are served, with HSTS")
  func oldProtocolsRefused() async throws {
    let directory = try TemporaryDirectory("tls-versions")
    defer { directory.remove() }
    guard try await offload({ try Self.makeCertificates(in: directory) }) else {
      print("SKIPPED TLS version test: /usr/bin/openssl not installed")
      return
    }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let tls = try HubTLSFiles(certificateChain: directory.file("server.pem"), privateKey: directory.file("server.key")).configuration()
    let hub = LiveHub(storage: storage, tls: tls)
    try await hub.start()
    let ca = try NIOSSLCertificate.fromPEMFile(directory.file("ca.pem"))
    func health(_ version: TLSVersion) async -> Int? {
      var configuration = TLSConfiguration.makeClientConfiguration()
      configuration.trustRoots = .certificates(ca)
      configuration.minimumTLSVersion = version
      configuration.maximumTLSVersion = version
      let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: HTTPClient.Configuration(tlsConfiguration: configuration))
      let response = try? await client.execute(HTTPClientRequest(url: hub.baseURL + "/healthz"), timeout: .seconds(5))
      try? await client.shutdown()
      // Served over TLS by the hub itself: browsers are told to keep to HTTPS (HSTS)
      if let response { #expect(response.headers["Strict-Transport-Security"].first?.hasPrefix("max-age=") == true) }
      return response.map { Int($0.status.code) }
    }
    let answers = [await health(.tlsv1), await health(.tlsv11), await health(.tlsv12), await health(.tlsv13)]
    await hub.stop()
    #expect(answers == [nil, nil, 200, 200], "TLS 1.0, 1.1, 1.2, 1.3")
  }

  @Test("a certificate issued for another host name stops the sync at once, like an untrusted one")
  func hostNameMismatch() async throws {
    let directory = try TemporaryDirectory("tls-name")
    defer { directory.remove() }
    guard try await offload({ try Self.makeCertificates(in: directory, subjectAltName: "DNS:hub.other.example") }) else {
      print("SKIPPED host name test: /usr/bin/openssl not installed")
      return
    }
    let (hub, storage, common) = try await Self.httpsHub(directory, rows: 5)
    // The certificate, from the trusted CA, is issued for hub.other.example; the device reaches 127.0.0.1
    let result = try await runCLI(common + ["--ca-file", directory.file("ca.pem")])
    await hub.stop()
    #expect(result.status == 69)
    #expect(result.stderr.contains("--ca-file") || result.stderr.contains("check --hub"), "\(result.stderr)")
    #expect(!result.stderr.contains("retrying"), "a certificate for another name must not be retried")
    #expect(try await storage.count(deviceId: "tls-desk") == 0)
  }
}
