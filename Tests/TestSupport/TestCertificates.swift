import Foundation

/// A private CA and a server certificate signed by it, made with openssl: for the hub's HTTPS tests and the MQTT
/// broker's TLS listener.
public enum TestCertificates {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Writes ca.key, ca.pem, server.key and server.pem (for `subjectAltName`, e.g. "IP:127.0.0.1" or
  /// "DNS:localhost,IP:127.0.0.1") into `directory`. False without /usr/bin/openssl.
  public static func make(in directory: TemporaryDirectory, subjectAltName: String = "IP:127.0.0.1") throws -> Bool {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { return false }
    _ = try directory.write("server.ext", """
      subjectAltName=\(subjectAltName)
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
      guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(step[0]) failed") }
    }
    return true
  }
}
