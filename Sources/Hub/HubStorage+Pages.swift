import StressModel
import SyncWire

// The values the pages and the per-device gauges read from storage. Every read here touches a bounded number of
// rows: a page of devices, a fixed number of time slots, a page of a day.

/// How the fleet page is sorted. Each order has a natural direction (`descending` flips it); devices without a
/// value come last, and ties go by device id.
public enum DeviceOrder: String, Sendable, CaseIterable {
  /// By device id, A to Z.
  case device
  /// By the newest window's stress level, highest first.
  case stress
  /// By the newest window's HRV (SDNN), lowest first.
  case hrv
  /// By the newest window's end, the quietest first (devices that never sent anything before them).
  case quiet
  /// By the rows waiting on the device plus those it quarantined, the largest backlog first.
  case backlog
}

/// A page of the fleet.
public struct DevicePageRequest: Sendable, Equatable {
  public var order: DeviceOrder
  public var descending: Bool
  public var offset: Int
  public var limit: Int
  /// Only this device (a reader token of one device).
  public var deviceId: String?
  /// Windows ending after this are ignored (a clock set ahead); see `HubStorage.latest`.
  public var notAfter: Double
  /// A device whose newest window ended before this, or that has none, counts as quiet.
  public var staleBefore: Double

  public init(
    order: DeviceOrder = .device, descending: Bool = false, offset: Int = 0, limit: Int, deviceId: String? = nil,
    notAfter: Double, staleBefore: Double
  ) {
    self.order = order
    self.descending = descending
    self.offset = offset
    self.limit = limit
    self.deviceId = deviceId
    self.notAfter = notAfter
    self.staleBefore = staleBefore
  }
}

/// One page of devices and the totals of the whole fleet (or of the one device a reader may see).
public struct DevicePage: Sendable, Equatable {
  public var devices: [DeviceSummary]
  /// Devices in the fleet, quiet ones, and the rows pending and quarantined on all of them.
  public var total: Int
  public var quiet: Int
  public var pendingRows: Int
  public var quarantinedRows: Int

  public init(devices: [DeviceSummary], total: Int, quiet: Int, pendingRows: Int, quarantinedRows: Int) {
    self.devices = devices
    self.total = total
    self.quiet = quiet
    self.pendingRows = pendingRows
    self.quarantinedRows = quarantinedRows
  }
}

/// Equal time slots `[from + k·step, from + (k+1)·step)` for k in 0..<count.
public struct TrendBuckets: Sendable, Equatable {
  public var from: Double
  public var step: Double
  public var count: Int

  public init(from: Double, step: Double, count: Int) {
    self.from = from
    self.step = step
    self.count = count
  }

  /// The slot holding `time`, if any.
  public func bucket(of time: Double) -> Int? {
    let index = Int(((time - from) / step).rounded(.down))
    return (0..<count).contains(index) ? index : nil
  }

  public var end: Double { from + step * Double(count) }
}

/// The newest window of one slot: enough to draw it with the category coding.
public struct TrendPoint: Sendable, Equatable {
  public var bucket: Int
  public var windowEnd: Double
  /// Nil when the window was not scored.
  public var stressLevel: Double?
  public var hrvMs: Double?
  public var quality: WindowQuality

  public init(bucket: Int, windowEnd: Double, stressLevel: Double?, hrvMs: Double?, quality: WindowQuality) {
    self.bucket = bucket
    self.windowEnd = windowEnd
    self.stressLevel = stressLevel
    self.hrvMs = hrvMs
    self.quality = quality
  }

  /// The category of a scored window, by the category table.
  public var category: StressCategory? {
    guard quality.isCategorised, let stressLevel else { return nil }
    return StressCategory(level: stressLevel)
  }

  /// Reads the quality as stored; an unknown value counts as not scored.
  static func quality(_ text: String?) -> WindowQuality {
    text.flatMap(WindowQuality.init(rawValue:)) ?? .insufficientBeats
  }
}

/// A page of one day's rows.
public struct DayPayloads: Sendable, Equatable {
  public var payloads: [String]
  /// Rows of the device in the whole range.
  public var total: Int

  public init(payloads: [String], total: Int) {
    self.payloads = payloads
    self.total = total
  }
}

/// A device's figures for the gauges on `/metrics`.
public struct DeviceState: Sendable, Equatable {
  public var deviceId: String
  public var lastUploadAt: Double?
  public var outboxPending: Int?
  public var outboxQuarantined: Int?
  /// The newest window's end, and its level and HRV when it was scored.
  public var latestWindowEnd: Double?
  public var latestLevel: Double?
  public var latestHrvMs: Double?

  public init(
    deviceId: String, lastUploadAt: Double?, outboxPending: Int?, outboxQuarantined: Int?, latestWindowEnd: Double?,
    latestLevel: Double?, latestHrvMs: Double?
  ) {
    self.deviceId = deviceId
    self.lastUploadAt = lastUploadAt
    self.outboxPending = outboxPending
    self.outboxQuarantined = outboxQuarantined
    self.latestWindowEnd = latestWindowEnd
    self.latestLevel = latestLevel
    self.latestHrvMs = latestHrvMs
  }
}

/// The first devices by id, and how many there are.
public struct DeviceStates: Sendable, Equatable {
  public var states: [DeviceState]
  public var total: Int

  public init(states: [DeviceState], total: Int) {
    self.states = states
    self.total = total
  }
}
