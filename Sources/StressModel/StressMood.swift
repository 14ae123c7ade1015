/// The seeds' "stress buddy" moods: a finer, friendlier reading of the level.
/// Ranges are half-open: [0,10) sleeping, [10,25) calm, [25,50) concerned, [50,75) worried, [75,100] overwhelmed.
public enum StressMood: String, Sendable, CaseIterable, Codable {
  case sleeping, calm, concerned, worried, overwhelmed

  public init(level: Double) {
    switch StressLevel.clamp(level) {
    case ..<10: self = .sleeping
    case ..<25: self = .calm
    case ..<50: self = .concerned
    case ..<75: self = .worried
    default: self = .overwhelmed
    }
  }

  public var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}
