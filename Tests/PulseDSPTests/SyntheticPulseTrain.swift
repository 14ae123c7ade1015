import Foundation

/// A pulse train on a large constant light level, for detector tests that need a pulse whose beats are known exactly:
/// each beat rises over 120 ms (half a cosine) and falls back exponentially (250 ms), `amplitude` counts high; plus
/// ±4 counts of seeded noise (a channel without any is flat: no contact) and whatever `extra(t)` adds (a ripple, a
/// breath).
enum SyntheticPulseTrain {
  static func samples(
    rateHz: Double, beats: [Double], amplitude: Double, seconds: Double, seed: UInt32,
    extra: (Double) -> Double = { _ in 0 }
  ) -> [Int32] {
    var state = seed
    return (0..<Int(seconds * rateHz)).map { i in
      let t = Double(i) / rateHz
      state = state &* 1_664_525 &+ 1_013_904_223
      var value = 100_000.0 + Double(state >> 29) - 4
      for beat in beats where t > beat - 0.12 {
        let u = t - beat
        let rise: Double = 0.5 * (1 - cos(Double.pi * (u + 0.12) / 0.12))
        let fall: Double = exp(-u / 0.25)
        value += amplitude * (u < 0 ? rise : fall)
      }
      value += extra(t)
      return Int32(value.rounded())
    }
  }
}
