import FoundationEssentials

/// Finds the shared real recordings (`../shared/data` beside the repository) for tests and benchmarks.
/// Order: $STRESSMON_DATA, the repository's sibling `shared/data`, then /work/shared/data.
public enum SharedData {
  public static let directory: String? = {
    var candidates: [String] = []
    if let env = ProcessInfo.processInfo.environment["STRESSMON_DATA"] { candidates.append(env) }
    candidates.append(repositoryRoot + "/../shared/data")
    candidates.append("/work/shared/data")
    return candidates.first { FileManager.default.fileExists(atPath: $0 + "/README.md") }
  }()

  /// The repository's root directory (two levels above this file).
  public static let repositoryRoot: String = {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/TestSupport/SharedData.swift
    return parts.joined(separator: "/")
  }()

  /// Path of a file under the data directory, e.g. `path("rr/pyhrv_nni_long.csv")`.
  public static func path(_ relative: String) throws -> String {
    guard let directory else { throw MissingData(file: relative) }
    let full = directory + "/" + relative
    guard FileManager.default.fileExists(atPath: full) else { throw MissingData(file: relative) }
    return full
  }

  /// Reads a one-column numeric CSV (header line first) as Doubles.
  public static func column(_ relative: String) throws -> [Double] {
    let text = try String(contentsOfFile: try path(relative), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
  }

  public struct MissingData: Error, CustomStringConvertible {
    public var file: String
    public var description: String {
      "shared recording '\(file)' not found: set STRESSMON_DATA to the directory holding the shared data set "
        + "(tried $STRESSMON_DATA, <repo>/../shared/data, /work/shared/data)"
    }
  }
}
