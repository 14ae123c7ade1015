/// JSON string literals (RFC 8259 §7): the one escaper of both executables (the CLI's JSON writer, the hub's
/// stored rows and JSON log lines, the small objects commands print with `--json`).
public enum JSONString {
  /// Hands `write` the bytes of `value` as a JSON string literal, quotes included: `"` and `\` escaped, newline,
  /// carriage return and tab as `\n` `\r` `\t`, other control characters as `\u00XX`; everything else, UTF-8's
  /// multi-byte sequences included, as it is. Inlinable so that a writer appending byte by byte pays no call.
  @inlinable
  public static func write(_ value: String, _ write: (UInt8) -> Void) {
    write(0x22)
    for byte in value.utf8 {
      switch byte {
      case 0x22, 0x5C:
        write(0x5C)
        write(byte)
      case 0x0A:
        write(0x5C)
        write(0x6E)
      case 0x0D:
        write(0x5C)
        write(0x72)
      case 0x09:
        write(0x5C)
        write(0x74)
      case 0..<0x20:
        write(0x5C)
        write(0x75)
        write(0x30)
        write(0x30)
        write(hexDigit(byte >> 4))
        write(hexDigit(byte & 0xF))
      default:
        write(byte)
      }
    }
    write(0x22)
  }

  /// Appends `value` as a JSON string literal to `bytes`.
  @inlinable
  public static func append(_ value: String, to bytes: inout [UInt8]) {
    write(value) { bytes.append($0) }
  }

  /// `value` as a JSON string literal.
  public static func literal(_ value: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    append(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @inlinable
  static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? 0x30 + value : 0x61 + value - 10
  }
}
