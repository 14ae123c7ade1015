import Foundation
import Testing

@testable import stressmon

/// The CLI's one JSON writer writes bytes by hand; what it writes must read back as what it was given.
@Suite("JSON text")
struct JSONTextTests {
  @Test("Strings escape quotes, backslashes and control characters and keep any Unicode as it is")
  func strings() throws {
    let texts = ["plain", "quote \" and \\ backslash", "tab\tnew\nline\rreturn", "\u{01}\u{1F}\u{7F}", "é ü 心 🫀", ""]
    let json = JSONText(layout: .line)
    json.object { o in for (i, text) in texts.enumerated() { o.string("k\(i)", text) } }
    #expect(json.string.contains(#""k3":"\u0001\u001f\#u{7F}""#), "\(json.string)")
    let back = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: String])
    for (i, text) in texts.enumerated() { #expect(back["k\(i)"] == text) }
  }

  @Test("Integers are written in full, at both ends of Int64")
  func integers() throws {
    let values: [Int64] = [0, 7, -7, 10, 1_000_000, -123_456_789, Int64.max, Int64.min]
    let json = JSONText(layout: .line)
    json.integers(values)
    #expect(json.string == "[" + values.map(String.init).joined(separator: ", ") + "]")
  }

  @Test("Indented objects put one field per line, two spaces a level; nil and non-finite numbers are null")
  func layout() {
    let json = JSONText()
    json.object { o in
      o.number("a", 1.5)
      o.object("b") { $0.integer("c", -3) }
      o.number("d", nil)
      o.number("e", .infinity)
    }
    #expect(json.string == "{\n  \"a\": 1.5,\n  \"b\": {\n    \"c\": -3\n  },\n  \"d\": null,\n  \"e\": null\n}")
  }
}

@Suite("JSON text: rounded numbers")
struct JSONRoundedNumberTests {
  /// `value` rounded to `places` decimals, the plain way: what `number(_:places:)` must agree with.
  private func rounded(_ value: Double, _ places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
  }

  /// What `number(_:places:)` must write: the shortest form of the rounded value, as `number` writes it.
  private func reference(_ value: Double, _ places: Int) -> String {
    let json = JSONText(layout: .line)
    json.number(rounded(value, places))
    return json.string
  }

  private func written(_ value: Double, _ places: Int) -> String {
    let json = JSONText(layout: .line)
    json.number(value, places: places)
    return json.string
  }

  @Test("Rounded numbers are written as the rounded value's shortest form, across magnitudes and places")
  func matchesShortestForm() {
    // A fixed xorshift sequence: values from 10⁻⁶ to 10¹² in both signs, near halves and with trailing zeros.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return state
    }
    var checked = 0
    for _ in 0..<60_000 {
      let mantissa = Double(next() % 1_000_000_007) / 1_000_000_007
      let exponent = Int(next() % 19) - 6
      var value = mantissa
      for _ in 0..<abs(exponent) { value = exponent < 0 ? value / 10 : value * 10 }
      if next() % 2 == 0 { value = -value }
      let places = Int(next() % 8)
      #expect(written(value, places) == reference(value, places), "\(value) at \(places) places")
      checked += 1
    }
    let edges: [Double] = [0, -0.0, 0.001, 0.0005, 0.00049, 0.1 + 0.2, 1.005, 2.675, 12.5, -12.5, 999_999_999.995, 1e9, 1e15, 0.999999]
    for value in edges {
      for places in 0...9 { #expect(written(value, places) == reference(value, places), "\(value) at \(places) places") }
    }
    #expect(checked == 60_000)
  }

  @Test("Nil and non-finite rounded numbers are null; already rounded values are written unchanged")
  func nullAndIdempotent() {
    #expect(written(.nan, 2) == "null")
    #expect(written(-.infinity, 2) == "null")
    let json = JSONText(layout: .line)
    json.number(nil, places: 3)
    #expect(json.string == "null")
    #expect(written(0.12345, 5) == "0.12345")
    #expect(written(rounded(61.234567, 2), 2) == "61.23")
    #expect(written(-0.5, 2) == "-0.5")
    #expect(written(250.0, 2) == "250")
  }
}
