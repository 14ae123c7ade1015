/// Why a measurement window can or cannot be categorised. Only `good` windows get a stress level; every other
/// state is shown as itself ("uncategorised"), never as a made-up number.
public enum WindowQuality: String, Sendable, CaseIterable, Codable {
  /// Enough clean beats, few artefacts: scored.
  case good
  /// No finger on the sensor: DC too low, or the signal is flat.
  case noContact = "no_contact"
  /// The ADC is at its rails (too much light or LED current).
  case saturated
  /// Motion or noise: too many beats rejected as artefacts, the detector without a steady rhythm, or a pulse buried
  /// in noise (peaks between the beats and beats unlike the pulse).
  case poorSignal = "poor_signal"
  /// Too few clean beats in the window (gaps, dropouts, start-up).
  case insufficientBeats = "insufficient_beats"
  /// Beat-to-beat intervals change at random (atrial-fibrillation-like): the beats are real, but SDNN measures
  /// the arrhythmia, not autonomic tone, so no stress level is derived from it.
  case irregularRhythm = "irregular_rhythm"

  /// Whether a stress level may be computed for a window of this quality.
  public var isCategorised: Bool { self == .good }

  /// Short text for panels and CLI output.
  public var displayText: String {
    switch self {
    case .good: "good signal"
    case .noContact: "no contact"
    case .saturated: "sensor saturated"
    case .poorSignal: "poor signal"
    case .insufficientBeats: "too few beats"
    case .irregularRhythm: "irregular rhythm"
    }
  }
}
