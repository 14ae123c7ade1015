import StressModel

extension MonitorConfiguration {
  /// A complete, commented configuration file with these values: what `stressmon run --print-config` prints and
  /// `scripts/install-service` writes to /etc/stressmon/stressmon.toml. Reading it back gives this configuration.
  public func commentedTOML(header: String? = nil) -> String {
    var lines: [String] = []
    func add(_ line: String = "") { lines.append(line) }
    func key(_ name: String, _ value: String, _ comment: String) {
      let assignment = "\(name) = \(value)"
      let padding = max(1, Self.commentColumn - assignment.count)
      let padded = assignment + String(repeating: " ", count: padding)
      add(padded + "# " + comment)
    }
    add("# stressmon daemon configuration: stressmon run --config FILE. Flags (--board, --source, --db, --mode,")
    add("# --device, --speed, --duration) override these values. Reference: docs/daemon.md.")
    if let header { add("# " + header) }
    add()
    add("[device]")
    key("id", Self.quoted(device.id), "this device's id on the hub (A-Z a-z 0-9 . _ -; default: the hostname)")
    key("mode", Self.quoted(device.mode.rawValue),
        "desk | wearable (fewer writes and wake-ups) | kiosk (shows [kiosk] device)")
    key("board", Self.quoted(device.board),
        "board name (rpi3, rpi4, rpi5, rpizero2w, sim) or a board file (docs/boards.md)")
    if let assume = device.assumeClockSynchronised {
      key("assume_clock_synchronised", "\(assume)", "trust the wall clock without NTP (boards with an RTC)")
    } else {
      add("# assume_clock_synchronised = false  "
        + "# default: only on a simulated board; true on boards with a battery RTC")
    }
    key("release_startup_memory", "\(device.releaseStartupMemory)", "page out start-up-only code once running (RSS)")
    add()
    add("[measurement]")
    key("source", Self.quoted(measurement.source), "board (the board's sensor) | replay:FILE.csv | synthetic")
    key("window_s", Self.number(measurement.windowSeconds), "HRV window length, seconds (DESIGN: 60)")
    key("step_s", Self.number(measurement.stepSeconds), "a result every step_s seconds")
    add()
    add("[store]")
    key("db", Self.quoted(store.database), "SQLite database: measurements, beats, baseline, sync outbox")
    key("flush_s", Self.number(store.flushSeconds), "longest a row waits in memory: what a power cut can lose")
    key("durability", Self.quoted(store.durability.rawValue),
        "full (fsync each commit) | normal (fewer writes, ~35 s at risk)")
    key("retention_days", Self.number(store.measurementRetentionDays), "uploaded measurements kept this long")
    key("retention_ibi_days", Self.number(store.ibiRetentionDays),
        "beat intervals kept this long (the baseline uses 30)")
    key("max_db_mb", Self.number(store.maxDatabaseMegabytes),
        "above this the oldest uploaded rows go (never unsynced ones)")
    add()
    add("[sync]")
    key("hub", Self.quoted(sync.hub), "the hub's URL, e.g. \"https://hub.local:8443\"; empty: no sync")
    key("token_file", Self.quoted(sync.tokenFile), "this device's token: stressmon-hub token create --device ID")
    key("ca_file", Self.quoted(sync.caFile), "PEM of a private hub CA; empty: the system's trust store")
    key("insecure_http", "\(sync.insecureHTTP)", "allow http:// (token sent unencrypted: trusted networks only)")
    key("interval_s", Self.number(sync.intervalSeconds), "seconds between uploads (backoff after failures)")
    add()
    add("[display]")
    key("leds", "\(display.leds)", "drive the board's LEDs")
    key("panel", "\(display.panel)", "drive the board's e-paper panel")
    key("breathing_pacer", "\(display.breathingPacer)", "show a 6-breaths-a-minute pacer instead of high's fast blink")
    key("panel_min_refresh_s", Self.number(display.panelMinimumRefreshSeconds),
        "same category: at most one refresh per this many s (the panel maker asks 180)")
    key("panel_on_category_change_only", "\(display.panelOnCategoryChangeOnly)",
        "refresh only when the category or state changes")
    key("panel_state", Self.quoted(display.panelState), "what the panel shows, across restarts; empty: beside db")
    add()
    add("[kiosk]")
    key("device", Self.quoted(kiosk.device), "kiosk mode: the device whose category to show")
    key("hub", Self.quoted(kiosk.hub), "kiosk mode: the hub to ask (GET /v1/devices/ID/latest)")
    key(
      "token_file", Self.quoted(kiosk.tokenFile),
      "kiosk mode: a reader token of the device: stressmon-hub token create --reader --device ID")
    key("poll_s", Self.number(kiosk.pollSeconds), "kiosk mode: seconds between questions")
    key("stale_after_s", Self.number(kiosk.staleAfterSeconds), "kiosk mode: older data is shown as old")
    add()
    add("[mqtt]")
    key("broker", Self.quoted(mqtt.broker), "Home Assistant: mqtts://HOST[:8883] or mqtt://HOST[:1883]; empty: off")
    key("credentials_file", Self.quoted(mqtt.credentialsFile),
        "user name, then password, one a line (chmod 600); empty: no login")
    key("ca_file", Self.quoted(mqtt.caFile), "PEM of the broker's CA; empty: the system's trust store")
    key("insecure", "\(mqtt.insecure)", "allow mqtt:// (data and password unencrypted: trusted networks only)")
    key("topic_prefix", Self.quoted(mqtt.topicPrefix), "state on PREFIX/DEVICE/state, availability beside it")
    key("discovery_prefix", Self.quoted(mqtt.discoveryPrefix), "Home Assistant's MQTT discovery prefix")
    key("keepalive_s", Self.number(mqtt.keepAliveSeconds), "longest silence before a ping to the broker")
    return lines.joined(separator: "\n") + "\n"
  }

  /// Where the comments start, so that most values line up.
  static let commentColumn = 34

  static func quoted(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\t": escaped += "\\t"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped + "\""
  }

  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }
}
