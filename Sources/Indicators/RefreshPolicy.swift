import Raster
import StressModel

/// When the e-paper panel may refresh, and how. E-paper wears and ghosts when driven too often or only ever
/// partially; the panel makers' notes (Waveshare e-Paper precautions) ask for at least 180 s between refreshes, a
/// full refresh after several partial ones, and a full refresh at least every 24 h. The policy follows them,
/// except that a change of category is shown at once: that is the information the panel exists for.
public struct RefreshPolicy: Sendable, Hashable {
  /// Shortest time between two refreshes unless the category changes.
  public var minimumIntervalSeconds: Int64
  /// Partial refreshes allowed before the next one must be full.
  public var maximumPartialsBetweenFulls: Int
  /// Longest time between full refreshes.
  public var maximumSecondsBetweenFulls: Int64

  public init(minimumIntervalSeconds: Int64 = 180, maximumPartialsBetweenFulls: Int = 10,
              maximumSecondsBetweenFulls: Int64 = 86_400) {
    self.minimumIntervalSeconds = minimumIntervalSeconds
    self.maximumPartialsBetweenFulls = maximumPartialsBetweenFulls
    self.maximumSecondsBetweenFulls = maximumSecondsBetweenFulls
  }

  /// What to do with `frame` showing `category` at wall-clock time `nowSeconds` (Unix seconds), given what the
  /// panel shows (`state`, nil when unknown: first start, lost or unreadable state file).
  public func decide(frame: Bitmap, category: StressCategory?, nowSeconds: Int64, state: PanelState?) -> RefreshDecision {
    guard let state, state.frame.width == frame.width, state.frame.height == frame.height else {
      return .full(.unknownScreen)
    }
    if state.frame == frame { return .skip(.unchanged) }
    let sinceLast = nowSeconds - state.lastRefreshSeconds
    // The wall clock stepped back (a Pi without RTC before NTP): how long ago the last refresh was is unknown,
    // so nothing can be assumed about ghosting; a full refresh is the safe choice.
    if sinceLast < 0 { return .full(.clockWentBack) }
    if category == state.category && sinceLast < minimumIntervalSeconds {
      return .skip(.tooSoon(retryAtSeconds: state.lastRefreshSeconds + minimumIntervalSeconds))
    }
    if state.partialsSinceFull >= maximumPartialsBetweenFulls { return .full(.partialLimit) }
    if nowSeconds - state.lastFullRefreshSeconds >= maximumSecondsBetweenFulls { return .full(.dailyFull) }
    return .partial
  }
}

/// What the panel shows and its refresh history: kept in memory and on disk (`PanelStateStore`).
public struct PanelState: Sendable, Hashable {
  /// The frame on the glass, in reading orientation.
  public var frame: Bitmap
  public var category: StressCategory?
  /// Unix seconds of the last refresh and of the last full refresh.
  public var lastRefreshSeconds: Int64
  public var lastFullRefreshSeconds: Int64
  public var partialsSinceFull: Int

  public init(frame: Bitmap, category: StressCategory?, lastRefreshSeconds: Int64, lastFullRefreshSeconds: Int64,
              partialsSinceFull: Int) {
    self.frame = frame
    self.category = category
    self.lastRefreshSeconds = lastRefreshSeconds
    self.lastFullRefreshSeconds = lastFullRefreshSeconds
    self.partialsSinceFull = partialsSinceFull
  }

  /// The state after a refresh of `mode` showing `frame` at `nowSeconds`.
  public func after(
    _ mode: EPaperDriver.RefreshMode, frame: Bitmap, category: StressCategory?, nowSeconds: Int64
  ) -> PanelState {
    PanelState(frame: frame, category: category, lastRefreshSeconds: nowSeconds,
               lastFullRefreshSeconds: mode == .full ? nowSeconds : lastFullRefreshSeconds,
               partialsSinceFull: mode == .full ? 0 : partialsSinceFull + 1)
  }

  /// The state after a first full refresh.
  public static func fresh(frame: Bitmap, category: StressCategory?, nowSeconds: Int64) -> PanelState {
    PanelState(frame: frame, category: category, lastRefreshSeconds: nowSeconds, lastFullRefreshSeconds: nowSeconds,
               partialsSinceFull: 0)
  }
}

/// The policy's answer.
public enum RefreshDecision: Sendable, Hashable, CustomStringConvertible {
  case full(FullReason)
  case partial
  case skip(SkipReason)

  public enum FullReason: Sendable, Hashable {
    /// No record of what the panel shows (first start, state file missing or unreadable, other panel size).
    case unknownScreen
    /// The wall clock went backwards since the last refresh.
    case clockWentBack
    /// `maximumPartialsBetweenFulls` partial refreshes since the last full one.
    case partialLimit
    /// The last full refresh is `maximumSecondsBetweenFulls` old.
    case dailyFull
  }

  public enum SkipReason: Sendable, Hashable {
    /// The panel already shows this frame.
    case unchanged
    /// Same category and less than the minimum interval since the last refresh; allowed again at this time.
    case tooSoon(retryAtSeconds: Int64)
  }

  /// The refresh to run, nil when skipped.
  public var mode: EPaperDriver.RefreshMode? {
    switch self {
    case .full: .full
    case .partial: .partial
    case .skip: nil
    }
  }

  public var description: String {
    switch self {
    case .full(let reason): "full refresh (\(reason.explanation))"
    case .partial: "partial refresh"
    case .skip(.unchanged): "skipped: unchanged"
    case .skip(.tooSoon(let retry)): "skipped: too soon, allowed again at \(retry)"
    }
  }
}

extension RefreshDecision {
  /// The refresh mode as a stable token for JSON: `full`, `partial` or `skip`.
  public var modeToken: String {
    switch self {
    case .full: "full"
    case .partial: "partial"
    case .skip: "skip"
    }
  }

  /// Why, as a stable token for JSON (`unknownScreen`, `partialLimit`, `tooSoon`, …); nil for a plain partial.
  public var reasonToken: String? {
    switch self {
    case .full(let reason): "\(reason)"
    case .partial: nil
    case .skip(.unchanged): "unchanged"
    case .skip(.tooSoon): "tooSoon"
    }
  }
}

extension RefreshDecision.FullReason {
  /// Why the refresh is full, in words for the event line.
  public var explanation: String {
    switch self {
    case .unknownScreen: "first picture: what the panel shows is not known"
    case .clockWentBack: "the clock went back since the last refresh"
    case .partialLimit: "after the allowed partial refreshes"
    case .dailyFull: "the daily full refresh"
    }
  }
}
