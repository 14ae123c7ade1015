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
  /// A CA and a server certificate for 127.0.0.1 signed by it, in `directory`. False without openssl.
  static func makeCertificates(in directory: TemporaryDirectory) throws -> Bool {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return false }
    _ = try directory.write("server.ext", """
      subjectAltName=IP:127.0.0.1
      basicConstraints=CA:FALSE
      keyUsage=critical,digitalSignature
      extendedKeyUsage=serverAuth

      """)
    let steps: [[String]] = [
      ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", directory.file("ca.key")],
      ["req", "-x509", "-new", "-key", directory.file("ca.key"), "-out", directory.file("ca.pem"), "-days", "2",
       "-subj", "/CN=stressmon test CA", "-addext", "basicConstraints=critical,CA:TRUE",
       "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
      ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", directory.file("server.key")],
      ["req", "-new", "-key", directory.file("server.key"), "-out", directory.file("server.csr"), "-subj", "/CN=127.0.0.1"],
      ["x509", "-req", "-in", directory.file("server.csr"), "-CA", directory.file("ca.pem"), "-CAkey", directory.file("ca.key"),
       "-CAcreateserial", "-out", directory.file("server.pem"), "-days", "2", "-extfile", directory.file("server.ext")],
    ]
    for step in steps {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = step
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else { throw HubStorageError("openssl \(step[0]) failed") }
    }
    return true
  }

  @Test("with --ca-file the device verifies the hub's certificate and syncs; without it nothing is sent")
  func privateCA() async throws {
    let directory = try TemporaryDirectory("tls")
    defer { directory.remove() }
    guard try await offload({ try Self.makeCertificates(in: directory) }) else {
      print("SKIPPED HTTPS test: /usr/bin/openssl not installed")
      return
    }
    let storage = try await SyncEndToEndTests.makeStorage(directory)
    let token = try await HubTokens.create(deviceId: "tls-desk", storage: storage, now: Date().timeIntervalSince1970)
    let tokenFile = try directory.write("token", token)
    let outbox = directory.file("outbox")
    try FileOutbox(directory: outbox).add(try MeasurementFixtures.records(device: "tls-desk", count: 40))
    let tls = try HubTLSFiles(certificateChain: directory.file("server.pem"), privateKey: directory.file("server.key")).configuration()
    let hub = LiveHub(storage: storage, tls: tls)
    try await hub.start()
    let common = ["sync", "--once", "--outbox", outbox, "--hub", hub.baseURL, "--token-file", tokenFile,
                  "--backoff-base", "0.01", "--backoff-cap", "0.02", "--connect-timeout", "2"]

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
}
