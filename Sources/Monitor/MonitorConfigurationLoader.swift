import Config
import HomeAssistant
import MQTT
import Store
import SyncWire

/// Reads the daemon's TOML file (the same TOML subset and parser as the board files): every error names the
/// file and line, unknown sections and keys are refused (a misspelt key is an error, not silently ignored).
///
/// Resolution order: the mode (flag, else `[device] mode`, else desk) picks the defaults, the file's values
/// replace them, and the caller applies its flags last.
public enum MonitorConfigurationLoader {
  public static let sections = ["device", "measurement", "store", "sync", "display", "kiosk", "mqtt"]

  /// Loads `path`, with `mode` (a flag) taking precedence over the file's `[device] mode`.
  public static func load(path: String, mode: MonitorMode? = nil) throws(ConfigError) -> MonitorConfiguration {
    try configuration(from: TOMLParser.parse(contentsOf: path), mode: mode)
  }

  /// The defaults of the mode, or of desk (no file).
  public static func defaults(mode: MonitorMode?) -> MonitorConfiguration {
    MonitorConfiguration.defaults(mode: mode ?? .desk)
  }

  public static func configuration(from document: TOMLDocument, mode flagMode: MonitorMode? = nil) throws(ConfigError)
    -> MonitorConfiguration
  {
    let path = document.path
    for name in document.sectionNames where !sections.contains(name) {
      let line = document[name]?.line ?? 1
      let message = name.isEmpty
        ? "keys must be inside a section (\(sections.map { "[\($0)]" }.joined(separator: ", ")))"
        : "unknown section [\(name)] (known: \(sections.map { "[\($0)]" }.joined(separator: ", ")))"
      throw .invalid(path: path, line: line, message: message)
    }

    var deviceSection = TOMLSectionReader.optional(document, "device")
    let fileMode = try deviceSection?.choice("mode", MonitorMode.self)
    var config = MonitorConfiguration.defaults(mode: flagMode ?? fileMode ?? .desk)
    if var section = deviceSection {
      if let id = try section.string("id") {
        guard SyncIdentifiers.isValidDeviceId(id) else {
          throw section.invalid("id", "'\(id)' must be 1-64 characters of A-Z a-z 0-9 . _ -")
        }
        config.device.id = id
      }
      if let board = try section.string("board") {
        guard !board.isEmpty else { throw section.invalid("board", "give a board name (rpi4) or a board file path") }
        config.device.board = board
      }
      config.device.assumeClockSynchronised = try section.bool("assume_clock_synchronised")
      config.device.releaseStartupMemory =
        try section.bool("release_startup_memory") ?? config.device.releaseStartupMemory
      try section.finish()
      deviceSection = section
    }

    if var section = TOMLSectionReader.optional(document, "measurement") {
      if let source = try section.string("source") {
        guard source == "board" || source == "synthetic" || source.hasPrefix("replay:") || source == "max30102" else {
          throw section.invalid("source", "'\(source)' must be board (the board's sensor), replay:FILE or synthetic")
        }
        config.measurement.source = source
      }
      config.measurement.windowSeconds =
        try section.number("window_s", range: 10...3600) ?? config.measurement.windowSeconds
      config.measurement.stepSeconds = try section.number("step_s", range: 1...3600) ?? config.measurement.stepSeconds
      if config.measurement.stepSeconds > config.measurement.windowSeconds {
        throw section.invalid(
          section.line(of: "step_s") != nil ? "step_s" : "window_s",
          "step_s (\(config.measurement.stepSeconds)) must not exceed window_s (\(config.measurement.windowSeconds))")
      }
      try section.finish()
    }

    if var section = TOMLSectionReader.optional(document, "store") {
      if let db = try section.string("db") {
        guard !db.isEmpty else {
          throw section.invalid("db", "give the database path, e.g. /var/lib/stressmon/stressmon.db")
        }
        config.store.database = db
      }
      config.store.flushSeconds = try section.number("flush_s", range: 0.5...600) ?? config.store.flushSeconds
      if let durability = try section.string("durability") {
        guard let value = MeasurementStore.Durability(rawValue: durability) else {
          throw section.invalid("durability", "'\(durability)' must be full or normal")
        }
        config.store.durability = value
      }
      config.store.ibiRetentionDays = try section.number("retention_ibi_days", range: 1...36_500)
        ?? config.store.ibiRetentionDays
      config.store.measurementRetentionDays = try section.number("retention_days", range: 1...36_500)
        ?? config.store.measurementRetentionDays
      config.store.maxDatabaseMegabytes = try section.number("max_db_mb", range: 16...1_048_576)
        ?? config.store.maxDatabaseMegabytes
      try section.finish()
    }

    if var section = TOMLSectionReader.optional(document, "sync") {
      if let hub = try section.string("hub") {
        try checkURL(hub, key: "hub", section: section)
        config.sync.hub = hub
      }
      config.sync.tokenFile = try section.string("token_file") ?? config.sync.tokenFile
      config.sync.caFile = try section.string("ca_file") ?? config.sync.caFile
      config.sync.insecureHTTP = try section.bool("insecure_http") ?? config.sync.insecureHTTP
      config.sync.intervalSeconds = try section.number("interval_s", range: 5...86_400) ?? config.sync.intervalSeconds
      try section.finish()
    }

    if var section = TOMLSectionReader.optional(document, "display") {
      config.display.leds = try section.bool("leds") ?? config.display.leds
      config.display.panel = try section.bool("panel") ?? config.display.panel
      config.display.breathingPacer = try section.bool("breathing_pacer") ?? config.display.breathingPacer
      config.display.panelMinimumRefreshSeconds = try section.number("panel_min_refresh_s", range: 0...86_400)
        ?? config.display.panelMinimumRefreshSeconds
      config.display.panelOnCategoryChangeOnly = try section.bool("panel_on_category_change_only")
        ?? config.display.panelOnCategoryChangeOnly
      config.display.panelState = try section.string("panel_state") ?? config.display.panelState
      try section.finish()
    }

    if var section = TOMLSectionReader.optional(document, "kiosk") {
      if let device = try section.string("device") {
        guard device.isEmpty || SyncIdentifiers.isValidDeviceId(device) else {
          throw section.invalid("device", "'\(device)' must be 1-64 characters of A-Z a-z 0-9 . _ -")
        }
        config.kiosk.device = device
      }
      if let hub = try section.string("hub") {
        try checkURL(hub, key: "hub", section: section)
        config.kiosk.hub = hub
      }
      config.kiosk.tokenFile = try section.string("token_file") ?? config.kiosk.tokenFile
      config.kiosk.pollSeconds = try section.number("poll_s", range: 1...3_600) ?? config.kiosk.pollSeconds
      config.kiosk.staleAfterSeconds =
        try section.number("stale_after_s", range: 10...604_800) ?? config.kiosk.staleAfterSeconds
      try section.finish()
    }

    if var section = TOMLSectionReader.optional(document, "mqtt") {
      try readMQTT(&section, into: &config.mqtt)
      try section.finish()
    }
    return config
  }

  /// `[mqtt]`: the broker URL is checked once `insecure` is known, so the keys may come in any order.
  private static func readMQTT(_ section: inout TOMLSectionReader, into mqtt: inout MonitorConfiguration.MQTTSettings)
    throws(ConfigError)
  {
    mqtt.broker = try section.string("broker") ?? mqtt.broker
    mqtt.credentialsFile = try section.string("credentials_file") ?? mqtt.credentialsFile
    mqtt.caFile = try section.string("ca_file") ?? mqtt.caFile
    mqtt.insecure = try section.bool("insecure") ?? mqtt.insecure
    for key in ["topic_prefix", "discovery_prefix"] {
      guard let prefix = try section.string(key) else { continue }
      if let problem = HomeAssistantDiscovery.prefixProblem(prefix) {
        throw section.invalid(key, "'\(prefix)' \(problem)")
      }
      if key == "topic_prefix" { mqtt.topicPrefix = prefix } else { mqtt.discoveryPrefix = prefix }
    }
    // MQTT 3.1.1 keeps it in 16 bits; below 5 s the pings would cost more wake-ups than they are worth.
    mqtt.keepAliveSeconds = try section.number("keepalive_s", range: 5...65_535) ?? mqtt.keepAliveSeconds
    guard !mqtt.broker.isEmpty else { return }
    do {
      _ = try MQTTConfiguration.parseBroker(mqtt.broker, allowPlain: mqtt.insecure)
    } catch {
      guard case .configuration(let message) = error else { throw section.invalid("broker", error.description) }
      throw section.invalid("broker", message)
    }
  }

  private static func checkURL(_ url: String, key: String, section: TOMLSectionReader) throws(ConfigError) {
    let lower = url.lowercased()
    guard url.isEmpty || lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
      throw section.invalid(key, "'\(url)' must start with https:// (or http:// with insecure_http = true)")
    }
  }
}
