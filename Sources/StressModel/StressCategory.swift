/// The four stress categories and everything that codes them: the single source of truth for every output
/// (LED, e-ink, PNG, CLI text, hub page). Nothing else in the project spells these facts out again.
///
/// Ranges are half-open on the stress level: [0,25) relaxed, [25,50) mild, [50,75) moderate, [75,100] high.
public enum StressCategory: String, Sendable, CaseIterable, Codable, Comparable {
  case relaxed, mild, moderate, high

  // MARK: - Initialization

  /// The category of a stress level in 0...100. Levels outside are clamped first; NaN is treated as 0.
  public init(level: Double) {
    let clamped = StressLevel.clamp(level)
    switch clamped {
    case ..<25: self = .relaxed
    case ..<50: self = .mild
    case ..<75: self = .moderate
    default: self = .high
    }
  }

  // MARK: - Public

  /// The stress levels this category covers (lower bound inclusive; upper exclusive except for `high`).
  public var levelRange: (lower: Double, upper: Double) {
    switch self {
    case .relaxed: (0, 25)
    case .mild: (25, 50)
    case .moderate: (50, 75)
    case .high: (75, 100)
    }
  }

  /// Human name, capitalised, as shown on the panel and in the CLI.
  public var displayName: String {
    switch self {
    case .relaxed: "Relaxed"
    case .mild: "Mild"
    case .moderate: "Moderate"
    case .high: "High"
    }
  }

  /// The shape drawn on the e-ink panel, the PNGs and the kiosk page.
  public var icon: CategoryIcon {
    switch self {
    case .relaxed: .leaf
    case .mild: .circle
    case .moderate: .triangle
    case .high: .square
    }
  }

  /// The 1-bit fill pattern inside the icon: it alone tells the categories apart without colour.
  public var pattern: FillPattern {
    switch self {
    case .relaxed: .solid
    case .mild: .diagonal
    case .moderate: .dots
    case .high: .crosshatch
    }
  }

  /// The LED blink pattern: it alone tells the categories apart on a single-colour LED.
  public var blink: BlinkPattern {
    switch self {
    case .relaxed: .steady
    case .mild: .slow
    case .moderate: .double
    case .high: .fast
    }
  }

  /// The colour of the LED and the hub page (Apple's system palette, as in the StressMonitor seeds).
  public var colour: RGBColour {
    switch self {
    case .relaxed: RGBColour(hex: 0x34C759)
    case .mild: RGBColour(hex: 0xFFCC00)
    case .moderate: RGBColour(hex: 0xFF9500)
    case .high: RGBColour(hex: 0xFF3B30)
    }
  }

  /// The colour's name, for text outputs and logs.
  public var colourName: String {
    switch self {
    case .relaxed: "green"
    case .mild: "yellow"
    case .moderate: "orange"
    case .high: "red"
    }
  }

  /// One sentence for a person: what the category means.
  public var summary: String {
    switch self {
    case .relaxed: "Your heart-rate variability is at or above your usual level: you are relaxed."
    case .mild: "Your heart-rate variability is a little below your usual level: mild stress."
    case .moderate: "Your heart-rate variability is well below your usual level: moderate stress."
    case .high: "Your heart-rate variability is far below your usual level and your pulse is up: high stress."
    }
  }

  /// The text a screen reader says for the category image (kiosk page, PNG alt text). It names the shape and
  /// the fill so that the coding is explained, not only the colour.
  public var accessibilityText: String {
    "Stress \(rawValue): \(icon.rawValue) icon with \(pattern.description) fill, \(blink.description) light."
  }

  public static func < (lhs: StressCategory, rhs: StressCategory) -> Bool {
    lhs.ordinal < rhs.ordinal
  }

  // MARK: - Private

  private var ordinal: Int {
    switch self {
    case .relaxed: 0
    case .mild: 1
    case .moderate: 2
    case .high: 3
    }
  }
}

/// Helpers for the 0-100 stress scale.
public enum StressLevel {
  /// Clamps to 0...100; NaN becomes 0 so that no made-up value leaks as "high".
  public static func clamp(_ level: Double) -> Double {
    guard !level.isNaN else { return 0 }
    return min(100, max(0, level))
  }

  /// The level for people to read, rounded *down* to `decimals` places: a level just under a category's upper
  /// bound (24.96, relaxed) must not read as the next category's first value ("25"). Machine output (`--json`)
  /// carries the level unrounded.
  public static func text(_ level: Double, decimals: Int = 0) -> String {
    var scale = 1.0
    for _ in 0..<max(0, decimals) { scale *= 10 }
    return ((clamp(level) * scale).rounded(.down) / scale).formatted(decimals: decimals)
  }
}
