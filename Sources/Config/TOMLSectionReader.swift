import BoardParts

/// Reads one section's keys with type checks, remembering which keys were read so that `finish()` can reject
/// the ones nobody asked for.
public struct TOMLSectionReader {
  public let path: String
  public let section: TOMLSection
  private var used: Set<String> = []

  /// A section the file must have.
  public init(_ document: TOMLDocument, _ name: String) throws(ConfigError) {
    guard let section = document[name] else {
      throw ConfigError.missing(
        path: document.path, section: name, key: "…", hint: "add a [\(name)] section (see docs/boards.md)")
    }
    path = document.path
    self.section = section
  }

  /// A section the file may have: nil when absent.
  public static func optional(_ document: TOMLDocument, _ name: String) -> TOMLSectionReader? {
    guard let section = document[name] else { return nil }
    return TOMLSectionReader(path: document.path, section: section)
  }

  private init(path: String, section: TOMLSection) {
    self.path = path
    self.section = section
  }

  public var lines: [String: Int] { section.entries.mapValues(\.line) }

  public func line(of key: String) -> Int? { section[key]?.line }

  public func invalid(_ key: String, _ message: String) -> ConfigError {
    .invalid(path: path, line: section[key]?.line ?? section.line, message: "[\(section.name)] \(key): \(message)")
  }

  public mutating func entry(_ key: String, required: Bool, hint: String) throws(ConfigError) -> TOMLEntry? {
    used.insert(key)
    guard let entry = section[key] else {
      if required { throw ConfigError.missing(path: path, section: section.name, key: key, hint: hint) }
      return nil
    }
    return entry
  }

  public mutating func string(_ key: String, required: Bool = false, hint: String = "") throws(ConfigError) -> String? {
    guard let entry = try entry(key, required: required, hint: hint) else { return nil }
    guard case .string(let text) = entry.value else { throw wrongType(key, entry, "a string in double quotes") }
    return text
  }

  public mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
    guard let entry = try entry(key, required: false, hint: "") else { return nil }
    guard case .boolean(let value) = entry.value else { throw wrongType(key, entry, "true or false") }
    return value
  }

  public mutating func integer(
    _ key: String, required: Bool = false, range: ClosedRange<Int>, hint: String = ""
  ) throws(ConfigError) -> Int? {
    guard let entry = try entry(key, required: required, hint: hint) else { return nil }
    guard case .integer(let value) = entry.value else { throw wrongType(key, entry, "a whole number") }
    guard value >= Int64(range.lowerBound) && value <= Int64(range.upperBound) else {
      throw invalid(key, "\(value) is outside \(range.lowerBound)...\(range.upperBound)" + (hint.isEmpty ? "" : "; \(hint)"))
    }
    return Int(value)
  }

  public mutating func number(_ key: String, range: ClosedRange<Double>) throws(ConfigError) -> Double? {
    guard let entry = try entry(key, required: false, hint: "") else { return nil }
    let value: Double
    switch entry.value {
    case .integer(let integer): value = Double(integer)
    case .float(let float): value = float
    default: throw wrongType(key, entry, "a number")
    }
    guard value.isFinite && range.contains(value) else {
      throw invalid(key, "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
    }
    return value
  }

  public mutating func choice<T: RawRepresentable & CaseIterable>(
    _ key: String, _ type: T.Type, required: Bool = false
  ) throws(ConfigError) -> T? where T.RawValue == String {
    let names = T.allCases.map(\.rawValue).joined(separator: " | ")
    guard let text = try string(key, required: required, hint: "one of \(names)") else { return nil }
    guard let value = T(rawValue: text.lowercased()) else { throw invalid(key, "unknown '\(text)' (known: \(names))") }
    return value
  }

  public mutating func lineReference(_ key: String) throws(ConfigError) -> GPIOLineID? {
    guard let entry = try entry(key, required: false, hint: "") else { return nil }
    guard let reference = Self.lineReference(entry.value) else {
      throw wrongType(key, entry, "a line name in quotes (\"GPIO25\") or an offset (25)")
    }
    return reference
  }

  public mutating func lineList(_ key: String) throws(ConfigError) -> [GPIOLineID]? {
    guard let entry = try entry(key, required: false, hint: "") else { return nil }
    guard case .array(let items) = entry.value else { throw wrongType(key, entry, "an array like [\"GPIO5\", \"GPIO6\"]") }
    var references: [GPIOLineID] = []
    for item in items {
      guard let reference = Self.lineReference(item) else {
        throw wrongType(key, entry, "an array of line names (\"GPIO5\") or offsets (5)")
      }
      references.append(reference)
    }
    return references
  }

  private static func lineReference(_ value: TOMLValue) -> GPIOLineID? {
    switch value {
    case .string(let name) where !name.isEmpty: .name(name)
    case .integer(let offset) where offset >= 0 && offset < 4096: .offset(UInt32(offset))
    default: nil
    }
  }

  private func wrongType(_ key: String, _ entry: TOMLEntry, _ expected: String) -> ConfigError {
    .invalid(
      path: path, line: entry.line,
      message: "[\(section.name)] \(key) must be \(expected), not \(entry.value.typeName)")
  }

  /// Rejects keys that no reader asked for.
  public func finish() throws(ConfigError) {
    for key in section.keys where !used.contains(key) {
      let known = used.sorted().joined(separator: ", ")
      throw ConfigError.invalid(
        path: path, line: section[key]!.line, message: "unknown key '\(key)' in [\(section.name)] (known: \(known))")
    }
  }
}
