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
