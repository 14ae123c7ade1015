import HomeAssistant
import Logging
import MQTT
import StressModel
import Sensors
import SyncWire

/// Home Assistant over MQTT as a pipeline stage (`[mqtt] broker` set, measuring modes): the status board hands it
/// each new status through a mailbox that keeps only the newest; it turns the status into the state message and
/// gives it to the `MQTTClient`, which keeps the newest value per topic and delivers it when the broker is there.
/// Nothing here can hold up sampling: the hand-over never waits, and memory is one value per topic.
///
/// Topics (all retained, QoS 1): the discovery configs (`HomeAssistantDiscovery`), `<prefix>/<id>/availability`
/// (`online` once connected; `offline` on a clean stop, and from the broker as the last will when the device
/// vanishes), `<prefix>/<id>/state` (`HomeAssistantState`).
final class MQTTStage: Sendable {
  struct Command: Sendable {
    var status: MonitorStatus
  }

  let mailbox = Mailbox<Command>(policy: .coalesce)
  let client: MQTTClient
  let discovery: HomeAssistantDiscovery
  private let runEnded = StopSignal()
  private let cutShort = StopSignal()
  private let logger = Logger(label: "stressmon.monitor.mqtt")

  /// How long a stop waits for the last state and `offline` to be acknowledged before it closes the connection.
  static let stopGraceSeconds = 3.0

  // MARK: - Initialization

  /// Reads the credentials file and the CA file now, so a wrong one stops the start with its fix.
  init(settings: MonitorConfiguration.MQTTSettings, deviceID: String, model: String) throws(MonitorError) {
    let configuration = try Self.clientConfiguration(settings, deviceID: deviceID)
    discovery = HomeAssistantDiscovery(
      deviceID: deviceID, model: model, softwareVersion: ProductVersion.text, topicPrefix: settings.topicPrefix,
      discoveryPrefix: settings.discoveryPrefix)
    do {
      var withWill = configuration
      withWill.will = try MQTTMessage(
        topic: discovery.availabilityTopic, payload: Array(HomeAssistantDiscovery.unavailablePayload.utf8),
        retain: true)
      client = try MQTTClient(configuration: withWill)
      for (topic, payload) in discovery.configMessages() {
        client.retain(try MQTTMessage(topic: topic, payload: payload, retain: true))
      }
      client.retain(try MQTTMessage(
        topic: discovery.availabilityTopic, payload: Array(HomeAssistantDiscovery.availablePayload.utf8),
        retain: true))
    } catch {
      throw .usage(error.description)
    }
  }

  /// The client's settings from `[mqtt]`: the broker URL, the credentials (file permissions checked), the CA,
  /// the keep-alive and the client id `stressmon-<device id>` (`suffix` for a second connection, e.g. doctor's).
  static func clientConfiguration(
    _ settings: MonitorConfiguration.MQTTSettings, deviceID: String, suffix: String = ""
  ) throws(MonitorError) -> MQTTConfiguration {
    let address: MQTTConfiguration.BrokerAddress
    do {
      address = try MQTTConfiguration.parseBroker(settings.broker, allowPlain: settings.insecure)
    } catch {
      throw .usage(error.description)
    }
    var configuration = MQTTConfiguration(
      host: address.host, port: address.port, useTLS: address.useTLS,
      caFile: settings.caFile.isEmpty ? nil : settings.caFile, clientID: "stressmon-\(deviceID)\(suffix)",
      keepAliveSeconds: UInt16(settings.keepAliveSeconds))
    if !settings.credentialsFile.isEmpty {
      do {
        let credentials = try MQTTConfiguration.readCredentials(settings.credentialsFile)
        if let warning = credentials.warning {
          Logger(label: "stressmon.monitor.mqtt").warning(
            "MQTT credentials file readable by its group", metadata: ["problem": "\(warning)"])
        }
        configuration.username = credentials.username
        configuration.password = credentials.password
      } catch {
        throw .badFile("[mqtt] credentials_file: \(error.description)", code: error.sysexitsCode)
      }
    }
    return configuration
  }

  // MARK: - Tasks

  /// Publishes each status handed over until the mailbox is finished.
  func consume() async {
    while let command = await mailbox.next() {
      let state = command.status.homeAssistantState
      do {
        client.retain(try MQTTMessage(topic: discovery.stateTopic, payload: state.payload(), retain: true))
      } catch {
        logger.error("cannot publish the state", metadata: ["error": "\(error)"])
      }
    }
  }

  /// The connection, until `close()`.
  func run() async {
    let client = client
    await runUntil(cutShort) { await client.run() }
    runEnded.stop()
  }

  /// After the last status: `offline`, delivered with the last state when the broker is there (at most
  /// `stopGraceSeconds`), then DISCONNECT; when it is away, nothing waits.
  func close() async {
    do {
      client.retain(try MQTTMessage(
        topic: discovery.availabilityTopic, payload: Array(HomeAssistantDiscovery.unavailablePayload.utf8),
        retain: true))
    } catch {
      logger.error("cannot publish offline", metadata: ["error": "\(error)"])
    }
    client.finish()
    let runEnded = runEnded
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await runEnded.wait() }
      group.addTask { try? await Task.sleep(nanoseconds: UInt64(Self.stopGraceSeconds * 1e9)) }
      await group.next()
      group.cancelAll()
    }
    // Past the grace period the connection is cut without DISCONNECT: the broker then publishes the will, offline.
    cutShort.stop()
    await runEnded.wait()
    let statistics = client.statistics
    logger.info("MQTT closed", metadata: [
      "delivered": "\(statistics.delivered)", "superseded": "\(statistics.superseded)",
      "connections": "\(statistics.connections)", "failed_attempts": "\(statistics.failures)",
      "all_delivered": "\(client.isDelivered)",
    ])
  }
}

extension MonitorConfiguration {
  /// `stressmon doctor --config FILE`'s broker check: connects once as `stressmon-<id>-doctor` (a daemon's own
  /// connection, if one runs, is left alone), waits for CONNACK and disconnects; skipped without `[mqtt] broker`.
  public func mqttBrokerCheck() async -> DiagnosticCheck {
    let name = "mqtt broker"
    guard !mqtt.broker.isEmpty else {
      return DiagnosticCheck(name: name, status: .skip, detail: "not configured ([mqtt] broker is empty)")
    }
    let fix = "fix [mqtt] in the configuration or the broker (docs/daemon.md, Home Assistant)"
    let client: MQTTConfiguration
    do {
      client = try MQTTStage.clientConfiguration(mqtt, deviceID: device.id, suffix: "-doctor")
    } catch {
      return DiagnosticCheck(name: name, status: .fail, detail: error.description, fix: fix)
    }
    var detail = client.brokerDescription
    if client.useTLS { detail += ", TLS verified against \(client.caFile ?? "the system's trust store")" }
    detail += client.username.map { ", user \($0)" } ?? ", no login"
    do {
      try await MQTTClient.check(client)
      return DiagnosticCheck(name: name, status: .pass, detail: "\(detail): connection accepted")
    } catch {
      return DiagnosticCheck(name: name, status: .fail, detail: "\(detail): \(error.description)", fix: fix)
    }
  }
}

extension MonitorStatus {
  /// The state message: the latest result's figures, or nulls when there is none (starting, no contact, a
  /// window that could not be scored), and why there is none.
  var homeAssistantState: HomeAssistantState {
    var state = result.map { HomeAssistantState(state: name, result: $0, windowEnd: resultAt) }
      ?? HomeAssistantState(state: name)
    switch phase {
    case .uncategorised(let quality): state.signalQuality = quality
    case .noContact: state.signalQuality = .noContact
    case .measuring, .learningBaseline: state.signalQuality = result == nil ? nil : .good
    case .starting, .settling, .stale, .waitingForData: state.signalQuality = nil
    }
    return state
  }
}
