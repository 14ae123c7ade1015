import FoundationEssentials

/// A fresh directory under the system temp dir, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
  public let path: String

  public init(_ label: String = "stressmon") throws {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    path = base + "/\(label)-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  public func file(_ name: String) -> String { path + "/" + name }

  public func write(_ name: String, _ text: String) throws -> String {
    let full = file(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    return full
  }

  /// Writes a file only its owner may read (0600), as a token file must be: stressmon refuses one others can read.
  public func writePrivate(_ name: String, _ text: String) throws -> String {
    let full = try write(name, text)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: full)
    return full
  }

  public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
