import Foundation

/// Per-device gauges on `/metrics`, read from storage at each scrape (so a deleted device's series go away and the
/// age is the age now): the newest window's stress level and HRV, the seconds since it ended, and the rows pending
/// and quarantined on the device. One series per device and gauge, for the first `HubOptions.metricsDeviceLimit`
/// devices by id: the label cardinality stays bounded however large the fleet; `stressmon_hub_devices` counts
/// them all and `stressmon_hub_device_gauges_omitted` the devices left out.
enum DeviceGauges {
  /// Every gauge this file writes, with its help text (the dashboard test reads the names).
  static let gauges: [(name: String, help: String)] = [
    ("stressmon_hub_devices", "Devices the hub knows (a token or an upload)"),
    ("stressmon_hub_device_gauges_omitted", "Devices without per-device gauges, past the hub's limit (by device id)"),
    ("stressmon_hub_device_stress_level", "Stress level (0-100) of the device's newest window, when it was scored"),
    ("stressmon_hub_device_hrv_ms", "HRV (SDNN, ms) of the device's newest window, when it was scored"),
    ("stressmon_hub_device_last_window_age_seconds", "Seconds since the device's newest window ended"),
    ("stressmon_hub_device_outbox_pending_rows", "Rows waiting on the device after its last upload, as it reported"),
    ("stressmon_hub_device_outbox_quarantined_rows", "Rows the device holds in quarantine, as it reported"),
  ]

  static func exposition(storage: any HubStorage, options: HubOptions) async throws -> String {
    let states = try await storage.deviceStates(limit: options.metricsDeviceLimit)
    return text(states, now: options.now())
  }

  /// Prometheus text format 0.0.4: HELP and TYPE, then one line per device that has the value.
  static func text(_ devices: DeviceStates, now: Double) -> String {
    let values: [[(String, Double)]] = [
      [("", Double(devices.total))],
      [("", Double(max(0, devices.total - devices.states.count)))],
      devices.states.compactMap { state in state.latestLevel.map { (state.deviceId, $0) } },
      devices.states.compactMap { state in state.latestHrvMs.map { (state.deviceId, $0) } },
      devices.states.compactMap { state in state.latestWindowEnd.map { (state.deviceId, max(0, now - $0)) } },
      devices.states.compactMap { state in state.outboxPending.map { (state.deviceId, Double($0)) } },
      devices.states.compactMap { state in state.outboxQuarantined.map { (state.deviceId, Double($0)) } },
    ]
    var out = ""
    for ((name, help), series) in zip(gauges, values) {
      out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
      for (device, value) in series {
        let labels = device.isEmpty ? "" : "{device=\"\(escape(device))\"}"
        out += "\(name)\(labels) \(number(value))\n"
      }
    }
    return out
  }

  /// Label values escape backslash, quote and newline (the text format's rule).
  static func escape(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }

  private static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
