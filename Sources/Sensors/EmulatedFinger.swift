/// The optics in front of an emulated MAX3010x: how much of each LED's light comes back to the photodiode, and
/// how much of that the pulse modulates.
///
/// Photodiode current (nA) = LED current (mA) × coupling (nA/mA) × (1 − perfusion × pulse), where `pulse` is the
/// normalised blood-volume wave (up = more blood = less light back), so raw counts fall at each beat, as on the
/// real part. Counts = current ÷ ADC range × 2^18. The defaults put a finger at about 65 % of full scale with 7 mA
/// IR on the 4096 nA range, with a perfusion index (pulse height over DC) of 1.5 % IR and 0.8 % red, typical of a
/// fingertip (perfusion index 0.2-20 %, ~1-2 % at rest; red AC/DC about half of IR's at SpO2 ≈ 97 %).
public struct EmulatedFinger: Sendable, Equatable {
  /// Whether a finger is on the sensor. Without one, only `leakage` comes back and there is no pulse.
  public var present = true
  /// nA of photodiode current per mA of LED current, by colour.
  public var redCoupling = 300.0
  public var irCoupling = 380.0
  public var greenCoupling = 120.0
  /// Pulse height over DC, by colour.
  public var redPerfusion = 0.008
  public var irPerfusion = 0.015
  public var greenPerfusion = 0.03
  /// nA per mA reaching the photodiode with nothing on the sensor (cover-glass reflection).
  public var leakage = 6.0
  /// Peak noise in counts per conversion (the datasheet's SNR figure puts it at a few tens of 18-bit counts).
  public var noiseCounts = 24.0

  public init() {}

  /// Nothing on the sensor.
  public static var absent: EmulatedFinger {
    var finger = EmulatedFinger()
    finger.present = false
    return finger
  }

  /// A finger that reflects `factor` times the default (a thick or dark finger below 1, a thin one above).
  public func scaled(by factor: Double) -> EmulatedFinger {
    var finger = self
    finger.redCoupling *= factor
    finger.irCoupling *= factor
    finger.greenCoupling *= factor
    return finger
  }
}

extension EmulatedFinger {
  /// Photodiode current in nA from an LED of `colour` driven at `milliamps`, with the normalised pulse wave at
  /// `pulse` (ignored without a finger).
  public func photocurrent(colour: LEDColour, milliamps: Double, pulse: Double) -> Double {
    guard present else { return milliamps * leakage }
    let (coupling, perfusion) = switch colour {
    case .red: (redCoupling, redPerfusion)
    case .ir: (irCoupling, irPerfusion)
    case .green: (greenCoupling, greenPerfusion)
    }
    return milliamps * coupling * (1 - perfusion * pulse)
  }
}

/// The physical colour of an LED.
public enum LEDColour: Int, Sendable, CaseIterable {
  case red = 0, ir = 1, green = 2
}
