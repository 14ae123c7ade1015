import FoundationEssentials
import Testing

/// Finds the real recordings (data/README.md) for tests. Order: `$STRESSMON_DATA` when set (empty means "none"),
/// else `shared/data` beside the repository, else the cache `scripts/fetch-data` fills
/// (`${STRESSMON_CACHE:-${XDG_CACHE_HOME:-~/.cache}/stressmon}/data`). `scripts/test` resolves the same order, fetching
/// when needed, and passes the answer in `$STRESSMON_DATA`.
///
/// Without any recordings a test that reads one is cancelled (reported as skipped, with the reason) at once; a
/// data directory that lacks a file is an error, not a skip.
public enum SharedData {
  public static let directory: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let explicit = environment["STRESSMON_DATA"] { return isDataDirectory(explicit) ? explicit : nil }
    return [repositoryRoot + "/../shared/data", cacheDirectory(environment)].first(where: isDataDirectory)
  }()

  /// The repository's root directory (two levels above this file).
  public static let repositoryRoot: String = {
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/TestSupport/SharedData.swift
    return parts.joined(separator: "/")
  }()

  /// Path of a file under the data directory, e.g. `path("rr/pyhrv_nni_long.csv")`. Cancels the running test when
  /// there is no data directory at all.
  public static func path(_ relative: String) throws -> String {
    guard let directory else {
      try Test.cancel("no recordings: run scripts/fetch-data (needs PyPI once) or set STRESSMON_DATA")
    }
    let full = directory + "/" + relative
    guard FileManager.default.fileExists(atPath: full) else { throw MissingData(file: relative, directory: directory) }
    return full
  }

  /// Reads a one-column numeric CSV (header line first) as Doubles.
  public static func column(_ relative: String) throws -> [Double] {
    let text = try String(contentsOfFile: try path(relative), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
  }

  public struct MissingData: Error, CustomStringConvertible {
    public var file: String
    public var directory: String
    public var description: String {
      "recording '\(file)' is missing from \(directory): re-create the set with scripts/fetch-data "
        + "(it checks every file against data/SHA256SUMS)"
    }
  }

  /// A directory counts once it has the team's README.md or the SHA256SUMS that `scripts/fetch-data` writes last.
  private static func isDataDirectory(_ path: String) -> Bool {
    !path.isEmpty
      && (FileManager.default.fileExists(atPath: path + "/README.md")
        || FileManager.default.fileExists(atPath: path + "/SHA256SUMS"))
  }

  private static func cacheDirectory(_ environment: [String: String]) -> String {
    if let cache = environment["STRESSMON_CACHE"], !cache.isEmpty { return cache + "/data" }
    let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? "") + "/.cache"
    return base + "/stressmon/data"
  }
}
