import Platform
import Store
import SyncWire

/// What the daemon is for: a desk monitor, a battery wearable, or a kiosk showing another device's category.
public enum MonitorMode: String, Sendable, CaseIterable, Codable {
  case desk
  /// Fewer writes and wake-ups: longer store batches, panel only on a category change, sync every 15 minutes.
  case wearable
  /// No sensor and no store: shows the latest category of `[kiosk] device` pulled from the hub.
  case kiosk
}

/// Everything `stressmon run` can be told, resolved: defaults for the mode, then the config file, then flags.
/// The file format and every key's meaning are in docs/daemon.md; `commentedTOML()` prints a complete file.
public struct MonitorConfiguration: Sendable, Equatable {
  // MARK: - Sections

  /// `[device]`
  public struct Device: Sendable, Equatable {
    /// This device's id on the hub (1-64 of `A-Z a-z 0-9 . _ -`).
    public var id: String
    public var mode: MonitorMode
    /// A board name (`rpi4`) or a board file path.
    public var board: String
    /// Treat the wall clock as synchronised; nil = only on a simulated board. Needed on boards with a
    /// battery-backed RTC and no NTP; wrong on a Pi without RTC (rows before NTP would be placed wrongly).
    public var assumeClockSynchronised: Bool?
    /// Page out the binary's start-up-only pages once the first result is shown (`StartupMemory`).
    public var releaseStartupMemory: Bool
  }

  /// `[measurement]`
  public struct Measurement: Sendable, Equatable {
    /// `board` (the board file's sensor, e.g. the MAX30102), `replay:FILE`, or `synthetic`.
    public var source: String
    public var windowSeconds: Double
    public var stepSeconds: Double
  }

  /// `[store]`
  public struct StoreSettings: Sendable, Equatable {
    public var database: String
    /// Longest a measured row waits in memory before it is committed: what a power cut can lose.
    public var flushSeconds: Double
    /// `full` (fsync every commit) or `normal` (fewer device writes, up to ~35 s lost in a power cut).
    public var durability: MeasurementStore.Durability
    public var ibiRetentionDays: Double
    public var measurementRetentionDays: Double
    public var maxDatabaseMegabytes: Double
  }

  /// `[sync]`
  public struct SyncSettings: Sendable, Equatable {
    /// The hub's base URL; empty: no sync (measurements stay in the store's outbox).
    public var hub: String
    public var tokenFile: String
    public var caFile: String
    public var insecureHTTP: Bool
    public var intervalSeconds: Double
  }

  /// `[display]`
  public struct Display: Sendable, Equatable {
    public var leds: Bool
    public var panel: Bool
    /// Replace the fast blink of "high" with a 6-breaths-a-minute pacer (keeps high's colour and position).
    public var breathingPacer: Bool
    /// Shortest time between two panel refreshes showing the same category (a new category shows at once).
    public var panelMinimumRefreshSeconds: Double
    /// Refresh the panel only when the category (or the error/no-contact state) changes.
    public var panelOnCategoryChangeOnly: Bool
    /// What the panel shows, kept across restarts; empty: `panel-state.pbm` beside the database.
    public var panelState: String
  }

  /// `[kiosk]`
  public struct Kiosk: Sendable, Equatable {
    /// The device whose category to show.
    public var device: String
    /// The hub to ask (`GET /v1/devices/{device}/latest`).
    public var hub: String
    /// A reader token of the device (`stressmon-hub token create --reader --device ID`): the hub answers no read
    /// without one.
    public var tokenFile: String
    public var pollSeconds: Double
    /// Older than this, the data is shown as old (the hub's kiosk page uses the same 600 s).
    public var staleAfterSeconds: Double
  }

  /// `[mqtt]`: Home Assistant over MQTT (docs/daemon.md, "Home Assistant").
  public struct MQTTSettings: Sendable, Equatable {
    /// `mqtts://HOST[:8883]` or `mqtt://HOST[:1883]`; empty: no MQTT.
    public var broker: String
    /// The broker's user name on the first line, the password on the second; empty: a broker without login.
    public var credentialsFile: String
    /// PEM of the CA that signed the broker's certificate; empty: the system's trust store.
    public var caFile: String
    /// Allow plain `mqtt://` (measurements and password unencrypted: trusted networks only).
    public var insecure: Bool
    /// State and availability topics: `<topic_prefix>/<device id>/state`, `/availability`.
    public var topicPrefix: String
    /// Home Assistant's discovery prefix (its MQTT integration's setting).
    public var discoveryPrefix: String
    /// Longest silence towards the broker before a PINGREQ.
    public var keepAliveSeconds: Double
  }

  public var device: Device
  public var measurement: Measurement
  public var store: StoreSettings
  public var sync: SyncSettings
  public var display: Display
  public var kiosk: Kiosk
  public var mqtt = MQTTSettings(
    broker: "", credentialsFile: "", caFile: "", insecure: false, topicPrefix: "stressmon",
    discoveryPrefix: "homeassistant", keepAliveSeconds: 60)

  // MARK: - Defaults

  /// The defaults of `mode`: a Pi 4 with the common wiring (docs/wiring.md) for desk and kiosk, a Pi Zero 2 W for
  /// the wearable.
  public static func defaults(mode: MonitorMode = .desk) -> MonitorConfiguration {
    let wearable = mode == .wearable
    return MonitorConfiguration(
      device: Device(
        id: defaultDeviceID(), mode: mode, board: wearable ? "rpizero2w" : "rpi4", assumeClockSynchronised: nil,
        releaseStartupMemory: true),
      measurement: Measurement(source: "board", windowSeconds: 60, stepSeconds: 10),
      store: StoreSettings(
        database: StorePaths.defaultDatabasePath(),
        // Wearable: one commit every 10 s instead of 2 s (docs/store.md: 2 s → 5 s already saves ~30 % of device
        // bytes); a power cut loses at most the last 10 s.
        flushSeconds: wearable ? 10 : 2, durability: .full,
        ibiRetentionDays: 30, measurementRetentionDays: 365, maxDatabaseMegabytes: 1024),
      sync: SyncSettings(
        hub: "", tokenFile: "/etc/stressmon/token", caFile: "", insecureHTTP: false,
        // Wearable: the radio wakes once every 15 minutes, not every minute.
        intervalSeconds: wearable ? 900 : 60),
      display: Display(
        leds: true, panel: true, breathingPacer: false, panelMinimumRefreshSeconds: 180,
        panelOnCategoryChangeOnly: wearable, panelState: ""),
      kiosk: Kiosk(device: "", hub: "", tokenFile: "/etc/stressmon/kiosk.token", pollSeconds: 10, staleAfterSeconds: 600))
  }

  /// The hostname when it is a valid device id, else "stressmon".
  public static func defaultDeviceID() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "stressmon" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let short = String(name.prefix { $0 != "." })
    return SyncIdentifiers.isValidDeviceId(short) ? short : "stressmon"
  }

  // MARK: - Derived

  /// The panel state file: the configured one, or `panel-state.pbm` beside the database.
  /// The TOML sections whose settings differ from `other`'s (for SIGHUP: what a restart would change).
  public func changedSections(comparedTo other: MonitorConfiguration) -> [String] {
    var changed: [String] = []
    if device != other.device { changed.append("device") }
    if measurement != other.measurement { changed.append("measurement") }
    if store != other.store { changed.append("store") }
    if sync != other.sync { changed.append("sync") }
    if display != other.display { changed.append("display") }
    if kiosk != other.kiosk { changed.append("kiosk") }
    if mqtt != other.mqtt { changed.append("mqtt") }
    return changed
  }

  public var panelStatePath: String {
    if !display.panelState.isEmpty { return display.panelState }
    let db = store.database
    guard let slash = db.lastIndex(of: "/") else { return "panel-state.pbm" }
    return String(db[...slash]) + "panel-state.pbm"
  }

  public var retention: RetentionPolicy {
    RetentionPolicy(
      measurementMaxAgeSeconds: store.measurementRetentionDays * 86_400,
      ibiMaxAgeSeconds: store.ibiRetentionDays * 86_400,
      maxDatabaseBytes: Int64(store.maxDatabaseMegabytes * 1_048_576))
  }

  /// The `[kiosk]` or `[device]` id a `--device` flag sets: in kiosk mode the device shown, else this device.
  public mutating func setDeviceFlag(_ id: String) {
    if device.mode == .kiosk { kiosk.device = id } else { device.id = id }
  }

  /// Checks that do not depend on the file's lines (the loader checks ranges and names with the line); flags
  /// may have changed values after loading. Returns a sentence saying what to change, or nil.
  public func problem() -> String? {
    if device.mode != .kiosk && !SyncIdentifiers.isValidDeviceId(device.id) {
      return "device id '\(device.id)' must be 1-64 characters of A-Z a-z 0-9 . _ - (set [device] id or --device)"
    }
    if measurement.stepSeconds > measurement.windowSeconds {
      return "[measurement] step_s (\(measurement.stepSeconds)) must not exceed window_s (\(measurement.windowSeconds))"
    }
    if device.mode == .kiosk {
      if kiosk.device.isEmpty {
        return "kiosk mode needs the device to show: set [kiosk] device = \"ID\" or pass --device ID"
      }
      if !SyncIdentifiers.isValidDeviceId(kiosk.device) {
        return "kiosk device '\(kiosk.device)' must be 1-64 characters of A-Z a-z 0-9 . _ -"
      }
      if kiosk.hub.isEmpty { return "kiosk mode needs the hub: set [kiosk] hub = \"https://HOST:PORT\"" }
    }
    return nil
  }
}
