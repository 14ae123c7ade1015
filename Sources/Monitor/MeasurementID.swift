/// Row ids: RFC 9562 UUID version 7 (48-bit Unix milliseconds, then random bits), lowercase. Time-ordered ids
/// append to the right edge of the store's unique index instead of touching a random page per window
/// (docs/store.md measured 4.8 → 4.2 MB/h written); they are ordinary UUIDs for the hub's upsert.
public enum MeasurementID {
  /// A new id for a row whose time is `unixMilliseconds`.
  public static func make<R: RandomNumberGenerator>(unixMilliseconds: Int64, using generator: inout R) -> String {
    var bytes = [UInt8](repeating: 0, count: 16)
    let milliseconds = UInt64(max(0, unixMilliseconds)) & 0xFFFF_FFFF_FFFF
    for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
    let random = (generator.next() as UInt64, generator.next() as UInt64)
    for index in 6..<16 {
      let word = index < 14 ? random.0 : random.1
      bytes[index] = UInt8(truncatingIfNeeded: word >> (8 * (index % 8)))
    }
    bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
    bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 10 (RFC 4122/9562)
    return text(bytes)
  }

  public static func make(unixMilliseconds: Int64) -> String {
    var generator = SystemRandomNumberGenerator()
    return make(unixMilliseconds: unixMilliseconds, using: &generator)
  }

  private static func text(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var characters: [UInt8] = []
    characters.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { characters.append(0x2D) }
      characters.append(digits[Int(byte >> 4)])
      characters.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: characters, as: UTF8.self)
  }
}
