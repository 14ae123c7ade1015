import Platform

/// Where the database lives when `--db` is not given.
public enum StorePaths {
  /// The system daemon's database (systemd `StateDirectory=stressmon`).
  public static let systemDatabasePath = "/var/lib/stressmon/stressmon.db"

  /// As root: `/var/lib/stressmon/stressmon.db`. Otherwise `$XDG_DATA_HOME/stressmon/stressmon.db` when
  /// XDG_DATA_HOME is an absolute path (the XDG rule: relative values are ignored), else
  /// `$HOME/.local/share/stressmon/stressmon.db`.
  public static func defaultDatabasePath(environment: [String: String], isRoot: Bool) -> String {
    if isRoot { return systemDatabasePath }
    if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
      return trimmingSlash(xdg) + "/stressmon/stressmon.db"
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return trimmingSlash(home) + "/.local/share/stressmon/stressmon.db"
  }

  /// The default for this process (its effective user and environment).
  public static func defaultDatabasePath() -> String {
    var environment: [String: String] = [:]
    for name in ["XDG_DATA_HOME", "HOME"] {
      if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    return defaultDatabasePath(environment: environment, isRoot: geteuid() == 0)
  }

  private static func trimmingSlash(_ path: String) -> String {
    var path = path
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path
  }
}
