/// Which way the pulse points in the samples handed to the detector.
///
/// Raw light intensity (a MAX30102 IR count, a PLUX SpO2 LED channel) falls when blood arrives: `inverted`.
/// Conditioned blood-volume pulse (BVP) rises: `normal`. The detector flips `inverted` input once, after
/// decimation, so everything downstream looks for upward systolic peaks.
public enum PulsePolarity: String, Sendable, CaseIterable, Codable {
  case normal, inverted
}
