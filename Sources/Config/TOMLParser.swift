import FoundationEssentials

/// Parses the TOML subset described in `TOMLDocument`. A hand-written scanner over UTF-8 bytes: board files are a
/// few dozen lines, and an error must name the exact line, which general-purpose TOML libraries do not all do.
public struct TOMLParser {
  // MARK: - Properties

  private let path: String
  private let bytes: [UInt8]
  private var index = 0
  private var line = 1

  /// Deepest array nesting accepted: board files need one level; the cap keeps hostile input from recursing.
  private static let maximumArrayDepth = 8

  // MARK: - Initialization

  private init(path: String, text: String) {
    self.path = path
    var bytes = Array(text.utf8)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // UTF-8 byte-order mark
    self.bytes = bytes
  }

  // MARK: - Public

  /// Parses `text`; `path` is only used in error messages.
  public static func parse(_ text: String, path: String) throws(ConfigError) -> TOMLDocument {
    var parser = TOMLParser(path: path, text: text)
    return try parser.document()
  }

  /// Reads and parses a file.
  public static func parse(contentsOf path: String) throws(ConfigError) -> TOMLDocument {
    var isDirectory: Bool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else {
      throw .notFound(path: path)
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .unreadable(path: path, reason: "cannot read the file")
    }
    guard let text = String(validating: data, as: UTF8.self) else {
      throw .syntax(path: path, line: 1, message: "the file is not UTF-8 text; save it as UTF-8")
    }
    return try parse(text, path: path)
  }

  // MARK: - Private: structure

  private mutating func document() throws(ConfigError) -> TOMLDocument {
    var document = TOMLDocument(path: path)
    var section = ""
    while true {
      skipSpaces()
      guard let byte = peek() else { break }
      switch byte {
      case 0x0A, 0x0D, 0x23:  // newline, carriage return, '#'
        try endOfLine()
      case 0x5B:  // '['
        section = try tableHeader()
        guard document.open(section, line: line) else {
          throw fail("section [\(section)] is declared twice; merge the two into one")
        }
        try endOfLine()
      default:
        let keyLine = line
        let key = try self.key()
        skipSpaces()
        if peek() == 0x2E {
          throw fail("dotted keys like '\(key).…' are not supported; put the key in a [section] instead")
        }
        guard peek() == 0x3D else { throw fail("expected '=' after the key '\(key)'") }
        index += 1
        skipSpaces()
        let value = try self.value(depth: 0)
        guard document.insert(key, TOMLEntry(value: value, line: keyLine), into: section) else {
          throw ConfigError.syntax(
            path: path, line: keyLine, message: "'\(key)' is set twice in \(Self.describe(section)); keep one")
        }
        try endOfLine()
      }
    }
    return document
  }

  private mutating func tableHeader() throws(ConfigError) -> String {
    index += 1
    if peek() == 0x5B { throw fail("arrays of tables ([[...]]) are not supported") }
    skipSpaces()
    var parts = [try key()]
    skipSpaces()
    while peek() == 0x2E {
      index += 1
      skipSpaces()
      parts.append(try key())
      skipSpaces()
    }
    guard peek() == 0x5D else { throw fail("expected ']' to close the section header") }
    index += 1
    return parts.joined(separator: ".")
  }

  private mutating func key() throws(ConfigError) -> String {
    if peek() == 0x22 { return try basicString() }
    if peek() == 0x27 { return try literalString() }
    let start = index
    while let byte = peek(), Self.isBareKeyByte(byte) { index += 1 }
    guard index > start else {
      if let byte = peek() {
        throw fail("expected a key name (letters, digits, '_' or '-'), found '\(Self.character(byte))'")
      }
      throw fail("expected a key name")
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// After a header or a value: spaces, an optional comment, then a newline or the end of the file.
  private mutating func endOfLine() throws(ConfigError) {
    skipSpaces()
    if peek() == 0x23 {
      while let byte = peek(), byte != 0x0A { index += 1 }
    }
    if peek() == 0x0D { index += 1 }
    guard let byte = peek() else { return }
    guard byte == 0x0A else {
      throw fail("unexpected '\(Self.character(byte))' after the value; one 'key = value' per line")
    }
    index += 1
    line += 1
  }

  // MARK: - Private: values

  private mutating func value(depth: Int) throws(ConfigError) -> TOMLValue {
    guard let byte = peek(), byte != 0x0A, byte != 0x0D, byte != 0x23 else { throw fail("expected a value after '='") }
    switch byte {
    case 0x22:
      if lookingAt("\"\"\"") { throw fail("multi-line strings are not supported; use one line") }
      return .string(try basicString())
    case 0x27:
      if lookingAt("'''") { throw fail("multi-line strings are not supported; use one line") }
      return .string(try literalString())
    case 0x5B:
      return try array(depth: depth + 1)
    case 0x7B:
      throw fail("inline tables ({ ... }) are not supported; use a [section]")
    default:
      return try scalar()
    }
  }

  private mutating func array(depth: Int) throws(ConfigError) -> TOMLValue {
    guard depth <= Self.maximumArrayDepth else { throw fail("arrays nested deeper than \(Self.maximumArrayDepth)") }
    index += 1
    var items: [TOMLValue] = []
    while true {
      try skipArrayFiller()
      guard let byte = peek() else { throw fail("the array is not closed; add ']'") }
      if byte == 0x5D {
        index += 1
        return .array(items)
      }
      items.append(try value(depth: depth))
      try skipArrayFiller()
      guard let next = peek() else { throw fail("the array is not closed; add ']'") }
      if next == 0x2C {
        index += 1
      } else if next != 0x5D {
        throw fail("expected ',' or ']' in the array, found '\(Self.character(next))'")
      }
    }
  }

  /// Spaces, newlines and comments are allowed anywhere between array items.
  private mutating func skipArrayFiller() throws(ConfigError) {
    while let byte = peek() {
      switch byte {
      case 0x20, 0x09, 0x0D: index += 1
      case 0x0A:
        index += 1
        line += 1
      case 0x23:
        while let b = peek(), b != 0x0A { index += 1 }
      default: return
      }
    }
  }

  /// Integers, floats, booleans: one bare token up to a delimiter.
  private mutating func scalar() throws(ConfigError) -> TOMLValue {
    let start = index
    while let byte = peek(), !Self.isDelimiter(byte) { index += 1 }
    let token = String(decoding: bytes[start..<index], as: UTF8.self)
    if token == "true" { return .boolean(true) }
    if token == "false" { return .boolean(false) }
    if let integer = Self.integer(token) { return .integer(integer) }
    if let float = Self.float(token) { return .float(float) }
    if token.contains("-") && token.first?.isNumber == true && token.count >= 8 {
      throw fail("dates and times ('\(token)') are not supported")
    }
    if token.isEmpty { throw fail("expected a value after '='") }
    throw fail("'\(token)' is not a value: put text in double quotes (\"\(token)\"), or write a number, true or false")
  }

  private mutating func basicString() throws(ConfigError) -> String {
    index += 1
    var out: [UInt8] = []
    while true {
      guard let byte = peek(), byte != 0x0A else { throw fail("the string is not closed; add '\"' on the same line") }
      index += 1
      if byte == 0x22 { break }
      guard byte == 0x5C else {
        out.append(byte)
        continue
      }
      guard let escape = peek() else { throw fail("the string is not closed") }
      index += 1
      switch escape {
      case 0x22: out.append(0x22)
      case 0x5C: out.append(0x5C)
      case 0x6E: out.append(0x0A)
      case 0x74: out.append(0x09)
      case 0x72: out.append(0x0D)
      case 0x62: out.append(0x08)
      case 0x66: out.append(0x0C)
      case 0x75, 0x55:
        let width = escape == 0x75 ? 4 : 8
        guard index + width <= bytes.count,
          let code = UInt32(String(decoding: bytes[index..<(index + width)], as: UTF8.self), radix: 16),
          let scalar = Unicode.Scalar(code)
        else { throw fail("bad unicode escape in the string; write \\uXXXX with 4 hex digits") }
        index += width
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
      default:
        throw fail("unknown escape '\\\(Self.character(escape))' in the string; write '\\\\' for a backslash")
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private mutating func literalString() throws(ConfigError) -> String {
    index += 1
    let start = index
    while let byte = peek(), byte != 0x27 {
      if byte == 0x0A { throw fail("the string is not closed; add \"'\" on the same line") }
      index += 1
    }
    guard peek() == 0x27 else { throw fail("the string is not closed; add \"'\"") }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    index += 1
    return text
  }

  // MARK: - Private: numbers

  static func integer(_ token: String) -> Int64? {
    var text = Substring(token)
    var negative = false
    if let first = text.first, first == "+" || first == "-" {
      negative = first == "-"
      text = text.dropFirst()
    }
    var radix = 10
    for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
      // TOML allows no sign on prefixed integers.
      if negative || token.first == "+" { return nil }
      radix = base
      text = text.dropFirst(2)
    }
    guard !text.isEmpty, text.first != "_", text.last != "_", !text.contains("__") else { return nil }
    let digits = text.filter { $0 != "_" }
    if radix == 10 && digits.count > 1 && digits.first == "0" { return nil }  // no leading zeros
    guard let magnitude = UInt64(digits, radix: radix) else { return nil }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
      return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
    guard magnitude <= UInt64(Int64.max) else { return nil }
    return Int64(magnitude)
  }

  static func float(_ token: String) -> Double? {
    switch token {
    case "inf", "+inf": return .infinity
    case "-inf": return -.infinity
    case "nan", "+nan", "-nan": return .nan
    default: break
    }
    guard token.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { return nil }
    guard !token.contains("__"), token.last != "_", token.last != ".", !token.hasPrefix("."),
      !token.contains("._"), !token.contains("_.")
    else { return nil }
    guard token.allSatisfy({ $0.isNumber || "+-._eE".contains($0) }) else { return nil }
    return Double(token.filter { $0 != "_" })
  }

  // MARK: - Private: bytes

  private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

  private func lookingAt(_ text: String) -> Bool {
    let pattern = Array(text.utf8)
    return index + pattern.count <= bytes.count && Array(bytes[index..<(index + pattern.count)]) == pattern
  }

  private mutating func skipSpaces() {
    while let byte = peek(), byte == 0x20 || byte == 0x09 { index += 1 }
  }

  private func fail(_ message: String) -> ConfigError { .syntax(path: path, line: line, message: message) }

  private static func isBareKeyByte(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
      || byte == 0x5F || byte == 0x2D
  }

  private static func isDelimiter(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x23 || byte == 0x2C || byte == 0x5D
  }

  private static func character(_ byte: UInt8) -> String {
    byte < 0x20 || byte > 0x7E ? "\\u{\(String(byte, radix: 16))}" : String(UnicodeScalar(byte))
  }

  static func describe(_ section: String) -> String { section.isEmpty ? "the top of the file" : "[\(section)]" }
}
