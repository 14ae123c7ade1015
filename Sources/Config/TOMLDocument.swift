/// A value from a TOML file, with the line it was written on (so that later checks can name the line).
public enum TOMLValue: Sendable, Equatable {
  case string(String)
  case integer(Int64)
  case float(Double)
  case boolean(Bool)
  case array([TOMLValue])

  /// The name used in error messages ("a string", "an integer", ...).
  public var typeName: String {
    switch self {
    case .string: "a string"
    case .integer: "an integer"
    case .float: "a number"
    case .boolean: "true or false"
    case .array: "an array"
    }
  }
}

/// One `key = value` line.
public struct TOMLEntry: Sendable, Equatable {
  public var value: TOMLValue
  public var line: Int

  public init(value: TOMLValue, line: Int) {
    self.value = value
    self.line = line
  }
}

/// One `[section]` and its keys, in file order. Keys before the first header live in the section named "".
public struct TOMLSection: Sendable, Equatable {
  public var name: String
  public var line: Int
  public private(set) var keys: [String] = []
  public private(set) var entries: [String: TOMLEntry] = [:]

  public init(name: String, line: Int) {
    self.name = name
    self.line = line
  }

  public subscript(key: String) -> TOMLEntry? { entries[key] }

  /// Adds a key; false when it is already there (TOML forbids duplicates).
  mutating func insert(_ key: String, _ entry: TOMLEntry) -> Bool {
    guard entries[key] == nil else { return false }
    entries[key] = entry
    keys.append(key)
    return true
  }
}

/// A parsed file of the TOML subset stressmon reads: sections, `key = value`, strings, integers (decimal, hex,
/// octal, binary), floats, booleans, arrays and comments. Inline tables, arrays of tables, dotted keys,
/// multi-line strings and dates are rejected with an error naming the line, never silently misread.
public struct TOMLDocument: Sendable, Equatable {
  public let path: String
  public private(set) var sectionNames: [String] = []
  public private(set) var sections: [String: TOMLSection] = [:]

  public init(path: String) { self.path = path }

  public subscript(section: String) -> TOMLSection? { sections[section] }

  /// Starts a section; false when it was already declared.
  mutating func open(_ name: String, line: Int) -> Bool {
    guard sections[name] == nil else { return false }
    sections[name] = TOMLSection(name: name, line: line)
    sectionNames.append(name)
    return true
  }

  mutating func insert(_ key: String, _ entry: TOMLEntry, into section: String) -> Bool {
    if sections[section] == nil { _ = open(section, line: entry.line) }
    return sections[section]!.insert(key, entry)
  }
}
