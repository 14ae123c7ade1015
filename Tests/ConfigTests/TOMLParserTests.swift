@testable import Config
import Testing

@Suite("TOML subset parser")
struct TOMLParserTests {
  @Test("Sections, strings, hex and decimal integers, floats, booleans, arrays and comments parse with their lines")
  func everyValueType() throws {
    // Given
    let text = """
      # a comment
      top = "level"

      [sensor]   # trailing comment
      part = "max30102"
      address = 0x57
      rate = 1_000
      negative = -3
      current = 7.5
      tiny = 2e-3
      swap = false
      escaped = "tab\\there \\"quoted\\" \\u00e9"
      literal = 'C:\\path'
      lines = [
        "GPIO5",   # red
        "GPIO6",
        13,
      ]
      empty = []
      nested = [[1, 2], [3]]
      """
    // When
    let document = try TOMLParser.parse(text, path: "test.toml")
    // Then
    #expect(document.sectionNames == ["", "sensor"])
    #expect(document[""]?["top"]?.value == .string("level"))
    let sensor = try #require(document["sensor"])
    #expect(sensor.keys.first == "part")
    #expect(sensor["part"] == TOMLEntry(value: .string("max30102"), line: 5))
    #expect(sensor["address"]?.value == .integer(0x57))
    #expect(sensor["rate"]?.value == .integer(1000))
    #expect(sensor["negative"]?.value == .integer(-3))
    #expect(sensor["current"]?.value == .float(7.5))
    #expect(sensor["tiny"]?.value == .float(0.002))
    #expect(sensor["swap"]?.value == .boolean(false))
    #expect(sensor["escaped"]?.value == .string("tab\there \"quoted\" é"))
    #expect(sensor["literal"]?.value == .string("C:\\path"))
    #expect(sensor["lines"]?.value == .array([.string("GPIO5"), .string("GPIO6"), .integer(13)]))
    #expect(sensor["lines"]?.line == 14)
    #expect(sensor["empty"]?.value == .array([]))
    #expect(sensor["nested"]?.value == .array([.array([.integer(1), .integer(2)]), .array([.integer(3)])]))
  }

  @Test("Malformed input is an error naming the file and the line", arguments: [
    ("[board]\nname = \"x\nother = 1", 2, "not closed"),
    ("[board]\nname \"x\"", 2, "'='"),
    ("[board]\nname = \"a\"\nname = \"b\"", 3, "twice"),
    ("[board]\n[board]", 2, "twice"),
    ("[board]\npins = { a = 1 }", 2, "inline tables"),
    ("[board]\nname = rpi4", 2, "double quotes"),
    ("[board]\nbus = 1 2", 2, "after the value"),
    ("[board]\na.b = 1", 2, "dotted"),
    ("[[boards]]", 1, "arrays of tables"),
    ("[board]\nlines = [1, 2", 2, "not closed"),
    ("[board]\nname = \"bad \\q escape\"", 2, "escape"),
    ("\n\n[board]\nwhen = 2024-01-01", 4, "dates"),
    ("[board]\nx = 0x", 2, "not a value"),
    ("[board]\nx = 012", 2, "not a value"),
    ("[board]\nx =", 2, "expected a value"),
  ])
  func malformed(text: String, line: Int, words: String) {
    let error = #expect(throws: ConfigError.self) { try TOMLParser.parse(text, path: "boards/bad.toml") }
    guard case .syntax(let path, let errorLine, let message)? = error else {
      Issue.record("expected a syntax error, got \(String(describing: error))")
      return
    }
    #expect(path == "boards/bad.toml")
    #expect(errorLine == line, "\(message)")
    #expect(message.contains(words), "\(message)")
    #expect(error?.description.hasPrefix("boards/bad.toml:\(line): ") == true)
    #expect(error?.sysexitCode == 65)
  }

  @Test("Integers: TOML's forms, and its limits")
  func integers() {
    #expect(TOMLParser.integer("0x1F") == 31)
    #expect(TOMLParser.integer("0o17") == 15)
    #expect(TOMLParser.integer("0b101") == 5)
    #expect(TOMLParser.integer("+7") == 7)
    #expect(TOMLParser.integer("9223372036854775807") == Int64.max)
    #expect(TOMLParser.integer("-9223372036854775808") == Int64.min)
    #expect(TOMLParser.integer("9223372036854775808") == nil)
    #expect(TOMLParser.integer("-0x10") == nil)
    #expect(TOMLParser.integer("1__0") == nil)
    #expect(TOMLParser.integer("_1") == nil)
  }

  @Test("A missing file is 'no input' (66)")
  func missingFile() {
    let error = #expect(throws: ConfigError.self) { try TOMLParser.parse(contentsOf: "/nonexistent/board.toml") }
    #expect(error == .notFound(path: "/nonexistent/board.toml"))
    #expect(error?.sysexitCode == 66)
  }
}
