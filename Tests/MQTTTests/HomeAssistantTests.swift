import Foundation
import HomeAssistant
import StressModel
import Testing

@Suite("Home Assistant discovery and state")
struct HomeAssistantTests {
  let discovery = HomeAssistantDiscovery(
    deviceID: "desk.1", model: "stressmon on rpi4", softwareVersion: "9.9.9", topicPrefix: "stressmon",
    discoveryPrefix: "homeassistant")

  static func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  @Test("one retained config per sensor under homeassistant/sensor/<node>/<object>/config, the node without dots")
  func topics() {
    let topics = discovery.configMessages().map(\.topic)
    #expect(topics == [
      "homeassistant/sensor/stressmon_desk_1/category/config",
      "homeassistant/sensor/stressmon_desk_1/stress_level/config",
      "homeassistant/sensor/stressmon_desk_1/hrv/config",
      "homeassistant/sensor/stressmon_desk_1/heart_rate/config",
      "homeassistant/sensor/stressmon_desk_1/confidence/config",
      "homeassistant/sensor/stressmon_desk_1/signal_quality/config",
      "homeassistant/sensor/stressmon_desk_1/status/config",
    ])
    #expect(discovery.stateTopic == "stressmon/desk.1/state")
    #expect(discovery.availabilityTopic == "stressmon/desk.1/availability")
  }

  @Test("each config names its state field, the availability topic, one device and the units")
  func configs() throws {
    let state = try Self.object(HomeAssistantState(
      state: "measuring", result: StressResult(
        level: 31.26, confidence: 0.83, hrvMs: 42.04, heartRateBpm: 71.96, baseline: .default),
      windowEnd: 1_790_000_000.7).payload())
    var devices: Set<String> = []
    for (sensor, message) in zip(HomeAssistantDiscovery.sensors, discovery.configMessages()) {
      let config = try Self.object(message.payload)
      #expect(config["state_topic"] as? String == discovery.stateTopic)
      #expect(config["availability_topic"] as? String == discovery.availabilityTopic)
      #expect(config["unique_id"] as? String == "stressmon_desk_1_\(sensor.objectID)")
      #expect(config["value_template"] as? String == "{{ value_json.\(sensor.field) }}")
      // The template's field exists in the state message: every sensor has something to read.
      #expect(state.keys.contains(sensor.field))
      let device = try #require(config["device"] as? [String: Any])
      #expect(device["sw_version"] as? String == "9.9.9")
      devices.insert((device["identifiers"] as? [String])?.joined() ?? "")
      if let options = sensor.options {
        #expect(config["device_class"] as? String == "enum")
        #expect(config["options"] as? [String] == options)
        #expect(config["state_class"] == nil)
      } else {
        #expect(config["state_class"] as? String == "measurement")
      }
    }
    #expect(devices == ["stressmon_desk_1"])
    let hrv = try Self.object(discovery.configMessages()[2].payload)
    #expect(hrv["unit_of_measurement"] as? String == "ms")
  }

  @Test("the state carries the figures rounded as the panel shows them, and the enum values the configs list")
  func state() throws {
    let state = try Self.object(HomeAssistantState(
      state: "learning_baseline", result: StressResult(
        level: 31.26, confidence: 0.83, hrvMs: 42.04, heartRateBpm: 71.96, baseline: .default),
      windowEnd: 1_790_000_000.7).payload())
    #expect(state["category"] as? String == "mild")
    #expect(state["stress_level"] as? Double == 31.3)
    #expect(state["hrv_ms"] as? Double == 42.0)
    #expect(state["heart_rate_bpm"] as? Double == 72.0)
    #expect(state["confidence_percent"] as? Int == 83)
    #expect(state["signal_quality"] as? String == "good")
    #expect(state["baseline"] as? String == "default")
    #expect(state["window_end"] as? Int == 1_790_000_000)
    let options = HomeAssistantDiscovery.sensors.first { $0.objectID == "status" }?.options ?? []
    #expect(options.contains("learning_baseline"))
  }

  @Test("without a result every figure is null (Home Assistant shows unknown), never left out or zero")
  func emptyState() throws {
    let text = String(decoding: HomeAssistantState(state: "no_contact", signalQuality: .noContact).payload(), as: UTF8.self)
    #expect(text == #"{"baseline":null,"category":null,"confidence_percent":null,"heart_rate_bpm":null,"#
      + #""hrv_ms":null,"signal_quality":"no_contact","state":"no_contact","stress_level":null,"window_end":null}"#)
  }

  @Test("prefixes: levels without wildcards, empty levels or a leading $", arguments: [
    ("homeassistant", true), ("home/assistant", true), ("", false), ("a/+", false), ("a/#", false), ("/a", false),
    ("a/", false), ("a//b", false), ("$SYS", false),
  ])
  func prefixes(prefix: String, valid: Bool) {
    #expect((HomeAssistantDiscovery.prefixProblem(prefix) == nil) == valid)
  }
}
