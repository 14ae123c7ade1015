/// The detector's honest view of its input, reported instead of invented beats.
///
/// Transitions are reported as `BeatDetectorEvent.quality` with the stream position where they happened, so a
/// consumer can tell how much of any time span was usable.
public enum SignalQuality: UInt8, Sendable, CaseIterable, Codable, CustomStringConvertible {
  /// Just started or restarted (after a gap, a lost finger, or lost lock): filters settle and the detector
  /// learns the pulse amplitude. No beats yet.
  case settling
  /// Beats are being found at a steady rhythm (two intervals in a row within 30 % of the expected one).
  case good
  /// The input is flat (nothing varies by more than the flat threshold), or below the configured "no finger"
  /// DC level: no finger on the sensor, or a dead channel.
  case noContact
  /// The input sits at an ADC rail (0 or 2^k − 1, or the configured rails) for a sustained run (a quarter
  /// of a second): nothing to measure, no beats.
  case saturated
  /// The systolic peaks touch a rail briefly (flat tops of 50 ms or more): beats are still found, at the
  /// middle of the flat top, with less precise timing. Counts as saturated for HRV windows.
  case clipped
  /// The signal varies but gives no steady rhythm: no credible pulse for several expected beats (lock lost,
  /// the detector learns afresh), or three of the last five intervals off the rhythm (motion, noise; beats
  /// are still reported and the IBI cleaner judges them).
  case poorSignal

  public var description: String {
    switch self {
    case .settling: "settling"
    case .good: "good"
    case .noContact: "no contact"
    case .saturated: "saturated"
    case .clipped: "clipped"
    case .poorSignal: "poor signal"
    }
  }
}
