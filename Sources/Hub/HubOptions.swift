import Foundation

/// Settings of a running hub that routes read.
public struct HubOptions: Sendable {
  /// A kiosk shows its stale-data warning, and the fleet page flags a device as quiet, when the newest window
  /// ended longer ago than this (seconds). Windows are 60 s and sync runs every minute, so 10 minutes without
  /// data means the device or its link is off.
  public var staleAfter: Double
  /// How often the kiosk and the fleet page ask for fresh data (seconds).
  public var kioskRefresh: Double
  /// Reads one token may make: `readRate` a second on average, `readBurst` at once. A kiosk polls every 10 s and
  /// a feed reader pages at most a few times a second; past this a token gets 429 with `Retry-After`, so one
  /// reader cannot starve ingest.
  public var readRate: Double
  public var readBurst: Double
  /// Wall clock, seconds since the Unix epoch (injected for tests of staleness and clock checks).
  public var now: @Sendable () -> Double
  /// The pages' bounds, so a fleet or a day of any size costs a bounded page: devices on a fleet page (a reader may
  /// ask up to `maxFleetPageSize`), rows drawn on a day page (a day with more is drawn in pages of this many),
  /// devices with per-device gauges on `/metrics` (a bounded label cardinality; the rest are counted).
  public var fleetPageSize = 100
  public var dayPageRows = 10_000
  public var metricsDeviceLimit = 1_000
  /// The trend on the kiosk and the fleet page: this many hours, one point per slot of `trendStep` seconds.
  public var trendHours = 6.0
  public var trendStep = 300.0

  public init(
    staleAfter: Double = 600, kioskRefresh: Double = 10, readRate: Double = 20, readBurst: Double = 40,
    now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
  ) {
    self.staleAfter = staleAfter
    self.kioskRefresh = kioskRefresh
    self.readRate = readRate
    self.readBurst = readBurst
    self.now = now
  }
}
