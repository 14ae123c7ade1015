import StressModel

/// Home Assistant's MQTT discovery for one device: a retained config message per sensor on
/// `<discovery_prefix>/sensor/<node>/<object>/config`, so that the sensors appear by themselves, grouped under one
/// device, unavailable while the device is away (its availability topic, which the broker sets to `offline` with
/// the device's last will). Every sensor reads its value from the one state message (`HomeAssistantState`).
public struct HomeAssistantDiscovery: Sendable, Equatable {
  /// This device's id (`[device] id`: 1-64 of `A-Z a-z 0-9 . _ -`).
  public var deviceID: String
  /// The device model shown in Home Assistant, e.g. "stressmon on rpi4".
  public var model: String
  public var softwareVersion: String
  /// Where the state and availability messages go: `<topicPrefix>/<deviceID>/state` and `/availability`.
  public var topicPrefix: String
  /// Home Assistant's discovery prefix (its MQTT integration's setting; `homeassistant` unless changed there).
  public var discoveryPrefix: String

  public init(deviceID: String, model: String, softwareVersion: String, topicPrefix: String, discoveryPrefix: String) {
    self.deviceID = deviceID
    self.model = model
    self.softwareVersion = softwareVersion
    self.topicPrefix = topicPrefix
    self.discoveryPrefix = discoveryPrefix
  }

  public static let availablePayload = "online"
  public static let unavailablePayload = "offline"

  /// What is wrong with a topic or discovery prefix, or nil: 1-200 characters, levels separated by `/`, none
  /// empty, no MQTT wildcard (`+`, `#`), no `$` first (the broker's own topics).
  public static func prefixProblem(_ prefix: String) -> String? {
    if prefix.isEmpty || prefix.count > 200 { return "must be 1-200 characters" }
    if prefix.hasPrefix("$") { return "must not start with $ (topics the broker keeps for itself)" }
    if prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\u{0}" }) {
      return "must not contain + or # (MQTT wildcards)"
    }
    if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
      return "must not start or end with / or contain //"
    }
    return nil
  }

  // MARK: - Topics

  public var stateTopic: String { "\(topicPrefix)/\(deviceID)/state" }
  public var availabilityTopic: String { "\(topicPrefix)/\(deviceID)/availability" }

  /// The discovery node id: discovery topic levels allow only `A-Z a-z 0-9 _ -`, so a `.` in the id becomes `_`.
  public var nodeID: String {
    "stressmon_" + String(deviceID.map { $0 == "." ? "_" : $0 })
  }

  public func configTopic(_ sensor: Sensor) -> String {
    "\(discoveryPrefix)/sensor/\(nodeID)/\(sensor.objectID)/config"
  }

  // MARK: - Sensors

  /// One Home Assistant sensor: which field of the state it shows and how.
  public struct Sensor: Sendable, Equatable {
    public var objectID: String
    public var name: String
    /// The `HomeAssistantState` JSON key.
    public var field: String
    public var unit: String?
    /// Numeric sensors get `state_class: measurement` (long-term statistics, graphs).
    public var numericPrecision: Int?
    /// Enumerations get `device_class: enum` with these options.
    public var options: [String]?
    public var icon: String
    /// Shown among the device's diagnostics rather than its main sensors.
    public var diagnostic: Bool
  }

  /// The sensors: category, level, HRV, heart rate, confidence, signal quality and the daemon's state.
  public static let sensors: [Sensor] = [
    Sensor(
      objectID: "category", name: "Stress category", field: "category", unit: nil, numericPrecision: nil,
      options: StressCategory.allCases.map(\.rawValue), icon: "mdi:shape-outline", diagnostic: false),
    Sensor(
      objectID: "stress_level", name: "Stress level", field: "stress_level", unit: nil, numericPrecision: 1,
      options: nil, icon: "mdi:gauge", diagnostic: false),
    Sensor(
      objectID: "hrv", name: "HRV (SDNN)", field: "hrv_ms", unit: "ms", numericPrecision: 1, options: nil,
      icon: "mdi:heart-pulse", diagnostic: false),
    Sensor(
      objectID: "heart_rate", name: "Heart rate", field: "heart_rate_bpm", unit: "bpm", numericPrecision: 0,
      options: nil, icon: "mdi:heart", diagnostic: false),
    Sensor(
      objectID: "confidence", name: "Confidence", field: "confidence_percent", unit: "%", numericPrecision: 0,
      options: nil, icon: "mdi:check-circle-outline", diagnostic: true),
    Sensor(
      objectID: "signal_quality", name: "Signal quality", field: "signal_quality", unit: nil, numericPrecision: nil,
      options: WindowQuality.allCases.map(\.rawValue), icon: "mdi:signal", diagnostic: true),
    Sensor(
      objectID: "status", name: "Status", field: "state", unit: nil, numericPrecision: nil,
      options: statusNames, icon: "mdi:information-outline", diagnostic: true),
  ]

  /// The daemon's state names (`MonitorStatus.name`) in a measuring mode.
  public static let statusNames = [
    "starting", "no_contact", "settling", "learning_baseline", "measuring", "uncategorised", "error",
  ]

  // MARK: - Messages

  /// Each sensor's config topic and JSON body, in the order of `sensors`.
  public func configMessages() -> [(topic: String, payload: [UInt8])] {
    Self.sensors.map { (configTopic($0), HomeAssistantJSON.encode(config(for: $0))) }
  }

  /// The config document (Home Assistant's MQTT sensor options, unabbreviated).
  func config(for sensor: Sensor) -> SensorConfig {
    SensorConfig(
      name: sensor.name, uniqueID: "\(nodeID)_\(sensor.objectID)", stateTopic: stateTopic,
      valueTemplate: "{{ value_json.\(sensor.field) }}", availabilityTopic: availabilityTopic,
      unit: sensor.unit, stateClass: sensor.numericPrecision == nil ? nil : "measurement",
      precision: sensor.numericPrecision, deviceClass: sensor.options == nil ? nil : "enum",
      options: sensor.options, icon: sensor.icon, entityCategory: sensor.diagnostic ? "diagnostic" : nil,
      device: SensorConfig.Device(
        identifiers: [nodeID], name: "stressmon \(deviceID)", manufacturer: "stressmon", model: model,
        softwareVersion: softwareVersion),
      origin: SensorConfig.Origin(name: "stressmon", softwareVersion: softwareVersion))
  }

  struct SensorConfig: Encodable {
    struct Device: Encodable {
      var identifiers: [String]
      var name: String
      var manufacturer: String
      var model: String
      var softwareVersion: String

      enum CodingKeys: String, CodingKey {
        case identifiers, name, manufacturer, model
        case softwareVersion = "sw_version"
      }
    }

    struct Origin: Encodable {
      var name: String
      var softwareVersion: String

      enum CodingKeys: String, CodingKey {
        case name
        case softwareVersion = "sw_version"
      }
    }

    var name: String
    var uniqueID: String
    var stateTopic: String
    var valueTemplate: String
    var availabilityTopic: String
    var unit: String?
    var stateClass: String?
    var precision: Int?
    var deviceClass: String?
    var options: [String]?
    var icon: String
    var entityCategory: String?
    var device: Device
    var origin: Origin

    enum CodingKeys: String, CodingKey {
      case name, icon, options, device, origin
      case uniqueID = "unique_id"
      case stateTopic = "state_topic"
      case valueTemplate = "value_template"
      case availabilityTopic = "availability_topic"
      case unit = "unit_of_measurement"
      case stateClass = "state_class"
      case precision = "suggested_display_precision"
      case deviceClass = "device_class"
      case entityCategory = "entity_category"
    }
  }
}
