/// JSON string literals (RFC 8259 §7): the one escaper of the hub, for stored rows and for log lines (a logfmt
/// value that needs quoting is quoted the same way).
enum JSONText {
  /// Appends `value` as a JSON string literal, quotes included.
  static func appendString(_ value: String, to bytes: inout [UInt8]) {
    let digits = Array("0123456789abcdef".utf8)
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case UInt8(ascii: "\n"):
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case UInt8(ascii: "\t"):
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20:
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
        bytes.append(digits[Int(byte >> 4)])
        bytes.append(digits[Int(byte & 0xF)])
      default:
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `value` as a JSON string literal.
  static func string(_ value: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    appendString(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
