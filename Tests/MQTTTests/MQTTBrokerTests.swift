import Foundation
import MQTT
import TestSupport
import Testing

/// The client against a real mosquitto (Debian's, started by each test on a free loopback port with its own
/// config): QoS 1 with PUBACK, retained messages, TLS with a private CA, a password file, keep-alive pings, the
/// last will, reconnection after the broker restarts, and newest-wins while the broker is away.
@Suite("MQTT client against mosquitto", .serialized, .enabled(if: MosquittoBroker.isInstalled, "mosquitto is not installed (scripts/setup --test)"))
struct MQTTBrokerTests {
  static func configuration(_ broker: MosquittoBroker, clientID: String = "stressmon-test") -> MQTTConfiguration {
    var configuration = MQTTConfiguration(
      host: broker.caFile == nil ? "127.0.0.1" : "localhost", port: broker.port, useTLS: broker.caFile != nil,
      caFile: broker.caFile, clientID: clientID, keepAliveSeconds: 60, connectTimeoutSeconds: 30,
      answerTimeoutSeconds: 30, retryInitialSeconds: 0.05, retryMaximumSeconds: 0.2)
    configuration.username = broker.credentials?.user
    configuration.password = broker.credentials.map { Array($0.password.utf8) }
    return configuration
  }

  static func message(_ topic: String, _ payload: String) throws -> MQTTMessage {
    try MQTTMessage(topic: topic, payload: Array(payload.utf8), retain: true)
  }

  /// Runs `client` while `body` runs, on a thread of its own (the suite's other tests may hold the cooperative
  /// pool, and a keep-alive or a timeout must not wait for them); ends it with `finish()` (or cancels it).
  static func running(_ client: MQTTClient, cancel: Bool = false, _ body: () async throws -> Void) async throws {
    let executor = OwnThreadExecutor(name: "mqtt-client")
    defer { executor.shutdown() }
    let task = Task(executorPreference: executor) { await client.run() }
    do {
      try await body()
    } catch {
      task.cancel()
      await task.value
      throw error
    }
    if cancel { task.cancel() } else { client.finish() }
    await task.value
  }

  /// `MQTTClient.check` on a thread of its own, as `running`.
  static func check(_ configuration: MQTTConfiguration) async throws {
    let executor = OwnThreadExecutor(name: "mqtt-check")
    defer { executor.shutdown() }
    try await Task(executorPreference: executor) { try await MQTTClient.check(configuration) }.value
  }

  @Test("QoS 1 retained messages reach a subscriber; the broker logs the PUBLISH at q1 r1 and its PUBACK")
  func publishes() async throws {
    let directory = try TemporaryDirectory("mqtt-plain")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory)
    try await broker.start()
    defer { broker.stop() }
    let subscriber = try await MosquittoSubscriber.start(broker: broker, topics: ["test/#"])
    defer { subscriber.stop() }
    let client = try MQTTClient(configuration: Self.configuration(broker))
    try await Self.running(client) {
      client.retain(try Self.message("test/a", "1"))
      client.retain(try Self.message("test/b", "{\"x\":2}"))
      #expect(await subscriber.wait() { $0.count >= 2 })
    }
    #expect(subscriber.messages.map(\.topic).sorted() == ["test/a", "test/b"])
    #expect(subscriber.messages.first { $0.topic == "test/b" }?.payload == "{\"x\":2}")
    #expect(client.statistics.delivered == 2)
    #expect(client.isDelivered)
    #expect(await broker.waitForLog("Received DISCONNECT from stressmon-test"))
    let log = broker.log
    #expect(log.contains("Received PUBLISH from stressmon-test (d0, q1, r1, m1, 'test/a'"))
    #expect(log.contains("Sending PUBACK to stressmon-test"))
    // Retained: a subscriber that comes later gets both, flagged retained.
    let late = try await MosquittoSubscriber.start(broker: broker, topics: ["test/#"])
    defer { late.stop() }
    #expect(await late.wait() { $0.count >= 2 })
    #expect(late.messages.allSatisfy { $0.retained })
  }

  @Test("TLS with a private CA and a password file: the right login publishes, a wrong one is refused with advice")
  func tlsAndPassword() async throws {
    let directory = try TemporaryDirectory("mqtt-tls")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory, tls: true, credentials: ("ha", "s3cret word"))
    try await broker.start()
    defer { broker.stop() }
    let subscriber = try await MosquittoSubscriber.start(broker: broker, topics: ["secure/#"])
    defer { subscriber.stop() }

    try await Self.check(Self.configuration(broker))
    let client = try MQTTClient(configuration: Self.configuration(broker))
    try await Self.running(client) {
      client.retain(try Self.message("secure/state", "ok"))
      #expect(await subscriber.wait() { $0.contains { $0.payload == "ok" } })
    }

    var wrong = Self.configuration(broker)
    wrong.password = Array("guess".utf8)
    await #expect {
      try await Self.check(wrong)
    } throws: { error in
      guard case .refused(let code) = error as? MQTTError else { return false }
      return (code == 4 || code == 5) && "\(error)".contains("credentials_file")
    }

    var untrusted = Self.configuration(broker)
    untrusted.caFile = nil
    await #expect {
      try await Self.check(untrusted)
    } throws: { error in
      guard case .tls = error as? MQTTError else { return false }
      return "\(error)".contains("ca_file")
    }
  }

  @Test("idle past the keep-alive, the client pings and the broker keeps the connection")
  func keepAlive() async throws {
    let directory = try TemporaryDirectory("mqtt-ping")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory)
    try await broker.start()
    defer { broker.stop() }
    var configuration = Self.configuration(broker)
    configuration.keepAliveSeconds = 1
    let client = try MQTTClient(configuration: configuration)
    try await Self.running(client) {
      client.retain(try Self.message("ping/state", "1"))
      // The broker drops a client silent for 1.5 keep-alives; 3.5 s of silence needs the pings.
      try await Task.sleep(nanoseconds: 3_500_000_000)
      #expect(client.statistics.connected)
    }
    #expect(client.statistics.connections == 1)
    #expect(broker.log.components(separatedBy: "Received PINGREQ from stressmon-test").count - 1 >= 2)
    #expect(broker.log.contains("Sending PINGRESP to stressmon-test"))
  }

  @Test("a connection lost without DISCONNECT makes the broker publish the last will")
  func lastWill() async throws {
    let directory = try TemporaryDirectory("mqtt-will")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory)
    try await broker.start()
    defer { broker.stop() }
    let subscriber = try await MosquittoSubscriber.start(broker: broker, topics: ["will/#"])
    defer { subscriber.stop() }
    var configuration = Self.configuration(broker)
    configuration.will = try Self.message("will/availability", "offline")
    let client = try MQTTClient(configuration: configuration)
    try await Self.running(client, cancel: true) {
      client.retain(try Self.message("will/availability", "online"))
      #expect(await subscriber.wait() { $0.contains { $0.payload == "online" } })
    }
    #expect(await subscriber.wait() { $0.last?.payload == "offline" })
  }

  @Test("while the broker is away only the newest value is kept; it arrives when the broker comes, and again after a restart")
  func awayAndBack() async throws {
    let directory = try TemporaryDirectory("mqtt-away")
    defer { directory.remove() }
    let broker = try MosquittoBroker(directory: directory)
    let client = try MQTTClient(configuration: Self.configuration(broker))
    try await Self.running(client) {
      for value in 1...1_000 { client.retain(try Self.message("away/state", "\(value)")) }
      client.retain(try Self.message("away/config", "c"))
      try await Task.sleep(nanoseconds: 300_000_000)
      #expect(client.statistics.failures >= 1)
      #expect(client.statistics.superseded == 999)

      try await broker.start()
      defer { broker.stop() }
      let subscriber = try await MosquittoSubscriber.start(broker: broker, topics: ["away/#"])
      defer { subscriber.stop() }
      // Retained on the broker, so the subscriber gets it whether it subscribed before or after the publish.
      #expect(await subscriber.wait() { $0.contains { $0.topic == "away/state" } })
      #expect(subscriber.messages.filter { $0.topic == "away/state" }.map(\.payload) == ["1000"])

      // Without persistence a restarted broker has forgotten every retained message: the client publishes all.
      broker.stop()
      try await broker.start()
      let again = try await MosquittoSubscriber.start(broker: broker, topics: ["away/#"])
      defer { again.stop() }
      #expect(await again.wait() { Set($0.map(\.topic)) == ["away/state", "away/config"] })
      #expect(client.statistics.connections >= 2)
    }
  }
}
