import Foundation
import MQTT
import Platform
import TestSupport
import Testing

@Suite("MQTT broker URL and credentials")
struct MQTTConfigurationTests {
  @Test("mqtts:// and mqtt:// give host, port (8883 and 1883 by default) and TLS", arguments: [
    ("mqtts://broker.local", "broker.local", 8883, true),
    ("mqtts://broker.local:9999/", "broker.local", 9999, true),
    ("MQTT://10.0.0.2", "10.0.0.2", 1883, false),
    ("mqtt://[fd00::1]:1884", "fd00::1", 1884, false),
  ])
  func brokers(url: String, host: String, port: Int, tls: Bool) throws {
    let address = try MQTTConfiguration.parseBroker(url, allowPlain: true)
    #expect(address == MQTTConfiguration.BrokerAddress(host: host, port: port, useTLS: tls))
  }

  @Test("a URL that cannot work is refused with what to write instead", arguments: [
    ("http://broker", "must be mqtts://HOST[:8883] (TLS) or mqtt://HOST[:1883]"),
    ("mqtts://user:pw@broker", "put them in credentials_file"),
    ("mqtts://broker/topic", "only scheme, host and port"),
    ("mqtts://broker:0", "the port must be 1-65535"),
    ("mqtts://:8883", "has no host name"),
    ("mqtts://[fd00::1", "closing ]"),
  ])
  func badBrokers(url: String, advice: String) {
    #expect {
      try MQTTConfiguration.parseBroker(url, allowPlain: true)
    } throws: { error in
      "\(error)".contains(advice)
    }
  }

  @Test("plain mqtt:// needs the explicit setting, and the message says why")
  func plainNeedsInsecure() {
    #expect {
      try MQTTConfiguration.parseBroker("mqtt://broker", allowPlain: false)
    } throws: { error in
      "\(error)".contains("unencrypted") && "\(error)".contains("insecure = true")
    }
  }

  @Test("credentials: user name on the first line, password (spaces kept) on the second; mode checked")
  func credentials() throws {
    let directory = try TemporaryDirectory("mqtt-credentials")
    defer { directory.remove() }
    let good = try directory.writePrivate("good", "homeassistant\npass word:1\n")
    let read = try MQTTConfiguration.readCredentials(good)
    #expect(read.username == "homeassistant")
    #expect(read.password == Array("pass word:1".utf8))
    #expect(read.warning == nil)

    let userOnly = try directory.writePrivate("user", "sensor\r\n")
    #expect(try MQTTConfiguration.readCredentials(userOnly).password == nil)

    let open = try directory.write("open", "u\np\n")
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
    #expect {
      try MQTTConfiguration.readCredentials(open)
    } throws: { error in
      (error as? SecretFile.Problem)?.sysexitsCode == 64 && "\(error)".contains("chmod 600")
    }

    let group = try directory.write("group", "u\np\n")
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: group)
    #expect(try MQTTConfiguration.readCredentials(group).warning?.contains("read by its group") == true)

    let three = try directory.writePrivate("three", "u\np\nextra\n")
    #expect(throws: SecretFile.Problem.self) { try MQTTConfiguration.readCredentials(three) }
    let empty = try directory.writePrivate("empty", "\n")
    #expect(throws: SecretFile.Problem.self) { try MQTTConfiguration.readCredentials(empty) }
    #expect {
      try MQTTConfiguration.readCredentials(directory.file("missing"))
    } throws: { error in
      (error as? SecretFile.Problem)?.sysexitsCode == 66
    }
  }
}
