/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, seedable generator. Used where a run must be
/// reproducible from its seed: the panel emulator's power-up noise, the sensor emulator's noise, the crash test's
/// random kill points, test fixtures. Here, beside the C library shim, because those users sit on both sides of the
/// graph (device emulators, store tests) and this is the one module they all depend on. Not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  /// The generator's increment, the golden ratio in 64 bits.
  public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

  public var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= Self.increment
    return Self.mix(state)
  }

  /// The output function: a bijective mix of 64 bits (also usable as a hash of a counter).
  public static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The low byte of the next value.
  public mutating func nextByte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

  /// A value in `range`, uniform up to a negligible modulo bias.
  public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }

  /// A double in [0, 1) from the top 53 bits.
  public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
