import Foundation
import Testing
import TestSupport

/// The daemon's Home Assistant output end to end: the real `stressmon` binary on the simulated board, a real
/// mosquitto (TLS with a private CA, a password file) and a real subscriber (mosquitto_sub).
@Suite(
  "Home Assistant over MQTT: the daemon and a real mosquitto", .serialized,
  .enabled(if: MosquittoBroker.isInstalled, "mosquitto is not installed (scripts/setup --test)"))
struct HomeAssistantMQTTTests {
  static let device = "ha-desk"
  static let sensors = ["category", "stress_level", "hrv", "heart_rate", "confidence", "signal_quality", "status"]

  static func config(_ directory: TemporaryDirectory, mqtt: [String]) throws -> String {
    try directory.write("stressmon.toml", (["[device]", "id = \"\(device)\"", "", "[mqtt]"] + mqtt).joined(separator: "\n") + "\n")
  }

  /// `stressmon run` on the simulated board at `--speed max` for 150 s of data: the window events it printed.
  static func run(_ directory: TemporaryDirectory, config: String?) async throws -> (CLIRunner.Result, [[String: Any]]) {
    var arguments = ["run", "--board", "sim", "--speed", "max", "--duration", "150", "--db", directory.file("run.db"),
                     "--json", "--device", device]
    if let config { arguments += ["--config", config] }
    let path = directory.path
    let command = arguments
    let result = try await onOwnThread { try CLIRunner.run(command, workingDirectory: path) }
    let events = result.stdout.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    return (result, events.filter { $0["event"] as? String == "window" })
  }

  static func object(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
  }

  @Test("discovery configs, states and availability reach a subscriber over TLS with a login, retained; doctor checks the broker")
  func discoveryAndState() async throws {
    // Given a TLS broker with a password file, a subscriber, and the daemon configured for it
    let directory = try TemporaryDirectory("ha-mqtt")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory, tls: true, credentials: ("homeassistant", "pass word"))
    try await broker.start()
    defer { broker.stop() }
    let subscriber = try await MosquittoSubscriber.start(broker: broker, topics: ["homeassistant/#", "stressmon/#"])
    defer { subscriber.stop() }
    let credentials = try directory.writePrivate("mqtt.credentials", "homeassistant\npass word\n")
    let config = try Self.config(directory, mqtt: [
      "broker = \"mqtts://localhost:\(broker.port)\"", "credentials_file = \"\(credentials)\"",
      "ca_file = \"\(broker.caFile ?? "")\"",
    ])

    // When the daemon measures 150 s of the demo recording and stops
    let (result, windows) = try await Self.run(directory, config: config)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(windows.count >= 9)

    // Then the subscriber saw one config per sensor, every state, and "offline" last on availability
    let availability = "stressmon/\(Self.device)/availability"
    #expect(await subscriber.wait() { $0.last { $0.topic == availability }?.payload == "offline" })
    let messages = subscriber.messages
    // What the subscriber received, one "retained topic payload" line each (`swift test --attachments-path DIR`).
    Attachment.record(
      messages.map { "\($0.retained ? 1 : 0) \($0.topic) \($0.payload)" }.joined(separator: "\n") + "\n",
      named: "ha-mqtt-received.txt")
    let configs = messages.filter { $0.topic.hasPrefix("homeassistant/") }
    #expect(Set(configs.map(\.topic)) == Set(Self.sensors.map { "homeassistant/sensor/stressmon_\(Self.device)/\($0)/config" }))
    for message in configs {
      let config = Self.object(message.payload)
      #expect(config["state_topic"] as? String == "stressmon/\(Self.device)/state")
      #expect(config["availability_topic"] as? String == availability)
      #expect((config["device"] as? [String: Any])?["model"] as? String == "stressmon on sim")
    }
    #expect(messages.filter { $0.topic == availability }.map(\.payload).first == "online")
    let states = messages.filter { $0.topic == "stressmon/\(Self.device)/state" }.map { Self.object($0.payload) }
    #expect(!states.isEmpty)

    // and the last state is the last window's figures (rounded to tenths, as published)
    let last = try #require(states.last)
    let window = try #require(windows.last)
    let category = window["category"] as? String
    #expect((last["category"] as? String ?? "uncategorised") == category)
    if category != "uncategorised" {
      #expect(abs((last["stress_level"] as? Double ?? -1) - (window["stress_level"] as? Double ?? 0)) <= 0.051)
      #expect(abs((last["hrv_ms"] as? Double ?? -1) - (window["sdnn_ms"] as? Double ?? 0)) <= 0.051)
      #expect(last["signal_quality"] as? String == "good")
      #expect(last["confidence_percent"] as? Int == Int(((window["confidence"] as? Double ?? 0) * 100).rounded()))
    }
    #expect(broker.log.contains("Received PUBLISH from stressmon-\(Self.device) (d0, q1, r1"))

    // and a subscriber that comes later gets the configs, the state and "offline", all retained
    let late = try await MosquittoSubscriber.start(broker: broker, topics: ["homeassistant/#", "stressmon/#"])
    defer { late.stop() }
    #expect(await late.wait() { $0.count >= Self.sensors.count + 2 })
    #expect(late.messages.allSatisfy { $0.retained })
    #expect(late.messages.first { $0.topic == availability }?.payload == "offline")

    // and doctor checks the broker with the same settings: accepted, then refused for a wrong password
    let doctor = try await onOwnThread { try CLIRunner.run(["doctor", "--board", "sim", "--config", config]) }
    #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
    #expect(doctor.stdout.contains("PASS  mqtt broker"))
    _ = try directory.writePrivate("mqtt.credentials", "homeassistant\nwrong\n")
    let refused = try await onOwnThread { try CLIRunner.run(["doctor", "--board", "sim", "--config", config]) }
    #expect(refused.status == 69)
    #expect(refused.stdout.contains("FAIL  mqtt broker"))
    #expect(refused.stdout.contains("credentials_file"))
  }

  @Test("with the broker away the daemon stores the same windows as without MQTT and exits 0")
  func brokerAway() async throws {
    let directory = try TemporaryDirectory("ha-away")
    defer { directory.remove() }
    let port = try MosquittoBroker.freePort()
    let config = try Self.config(directory, mqtt: ["broker = \"mqtt://127.0.0.1:\(port)\"", "insecure = true"])
    let (away, awayWindows) = try await Self.run(directory, config: config)
    #expect(away.status == 0, "\(away.stderr)")
    #expect(away.stderr.contains("MQTT broker not available"))

    let plainDirectory = try TemporaryDirectory("ha-none")
    defer { plainDirectory.remove() }
    let (plain, plainWindows) = try await Self.run(plainDirectory, config: nil)
    #expect(plain.status == 0, "\(plain.stderr)")
    let key = { (window: [String: Any]) in "\(window["end_s"] ?? "")|\(window["category"] ?? "")|\(window["stress_level"] ?? "")" }
    #expect(awayWindows.map(key) == plainWindows.map(key))
    #expect(awayWindows.count >= 9)
  }

  @Test("a wrong [mqtt] section stops the start with the file's line and the fix")
  func badConfiguration() throws {
    let directory = try TemporaryDirectory("ha-bad")
    defer { directory.remove() }
    let plain = try Self.config(directory, mqtt: ["broker = \"mqtt://broker.local\""])
    let refused = try CLIRunner.run(["run", "--board", "sim", "--config", plain, "--duration", "1"])
    #expect(refused.status == 65)
    #expect(refused.stderr.contains("stressmon.toml:5"))
    #expect(refused.stderr.contains("insecure = true"))

    let open = try directory.write("open.credentials", "u\np\n")
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
    let exposed = try Self.config(directory, mqtt: ["broker = \"mqtts://broker.local\"", "credentials_file = \"\(open)\""])
    let refusedFile = try CLIRunner.run(
      ["run", "--board", "sim", "--config", exposed, "--duration", "1", "--db", directory.file("x.db")],
      workingDirectory: directory.path)
    #expect(refusedFile.status == 64)
    #expect(refusedFile.stderr.contains("chmod 600"))
  }
}
