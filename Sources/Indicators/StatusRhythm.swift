import StressModel

/// LED rhythms for the states that are not a category. Each differs in its on/off timeline from every category's
/// `BlinkPattern` (StressModel's table) and from the others, so a single-colour LED still tells them apart
/// (tests sample all eight timelines and compare them).
public enum StatusRhythm: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
  /// No finger on the sensor: one short blip every 3 s, a light that is clearly alive but says "nothing to show".
  case noContact
  /// Measuring or learning the baseline: a short flash every second, "working on it".
  case measuring
  /// Something is broken (sensor missing, storage failing): three quick flashes every 2 s.
  case error
  /// The breathing pacer: 6 breaths a minute (10 s a breath, the rate of resonance-frequency breathing,
  /// Lehrer & Gevirtz 2014), lit while breathing in for 4 s, dark while breathing out for 6 s.
  case breathing

  /// Breaths per minute of the pacer.
  public static let breathsPerMinute = 6
  /// Inhale share of a breath: 4 s of 10, a longer exhale as paced-breathing exercises use.
  public static let inhaleMilliseconds = 4_000

  /// One period as (on, duration in ms) segments; the sum is the period.
  public var segments: [(on: Bool, milliseconds: Int)] {
    switch self {
    case .noContact: [(true, 100), (false, 2_900)]
    case .measuring: [(true, 200), (false, 800)]
    case .error: [(true, 100), (false, 100), (true, 100), (false, 100), (true, 100), (false, 1_500)]
    case .breathing:
      [(true, Self.inhaleMilliseconds), (false, 60_000 / Self.breathsPerMinute - Self.inhaleMilliseconds)]
    }
  }

  public var description: String {
    switch self {
    case .noContact: "one blip every 3 s"
    case .measuring: "short flash every second"
    case .error: "triple flash"
    case .breathing: "breathing pacer, 4 s on / 6 s off"
    }
  }
}

/// What the LEDs show.
public enum IndicatorState: Sendable, Hashable, CustomStringConvertible {
  /// All LEDs dark.
  case off
  /// A scored category, coded by blink pattern (every wiring), colour (RGB) and position (bar).
  case category(StressCategory)
  /// No finger on the sensor.
  case noContact
  /// Measuring, or collecting windows for the personal baseline.
  case measuring
  /// A fault the user must see.
  case error
  /// The breathing pacer (also shown instead of `high` when the wiring asks for it).
  case breathingPacer

  /// The on/off timeline of the state, from the category table or `StatusRhythm`; nil for `off`.
  public var segments: [(on: Bool, milliseconds: Int)]? {
    switch self {
    case .off: nil
    case .category(let category): category.blink.segments
    case .noContact: StatusRhythm.noContact.segments
    case .measuring: StatusRhythm.measuring.segments
    case .error: StatusRhythm.error.segments
    case .breathingPacer: StatusRhythm.breathing.segments
    }
  }

  public var description: String {
    switch self {
    case .off: "off"
    case .category(let category): category.rawValue
    case .noContact: "no contact"
    case .measuring: "measuring"
    case .error: "error"
    case .breathingPacer: "breathing pacer"
    }
  }
}
