import FoundationEssentials

/// Finds board files by name from any working directory.
///
/// `--board` takes a path (anything with a '/' or ending in `.toml`) or a name looked up as `<name>.toml` in, in
/// order: the directories in `$STRESSMON_BOARDS` (colon-separated); `boards/` of the repository checkout the
/// executable was built in (the nearest ancestor of the executable holding `Package.swift` and `boards/`);
/// `<prefix>/share/stressmon/boards` beside an installed `<prefix>/bin/stressmon`; `/usr/local/share/stressmon/boards`;
/// `/usr/share/stressmon/boards`; and last `./boards`.
public struct BoardCatalog: Sendable {
  // MARK: - Properties

  /// Directories searched for `<name>.toml`, in order, existing ones only.
  public let directories: [String]

  // MARK: - Initialization

  public init(directories: [String]) { self.directories = directories }

  /// The catalog for this process: environment, executable location, install prefixes, working directory.
  public static func standard(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    executablePath: String? = BoardCatalog.currentExecutablePath()
  ) -> BoardCatalog {
    var candidates: [String] = []
    if let list = environment["STRESSMON_BOARDS"] {
      candidates += list.split(separator: ":").map(String.init)
    }
    if let executablePath {
      let executableDirectory = BoardLoader.directory(of: executablePath)
      var directory = executableDirectory
      while directory != "/" && !directory.isEmpty && directory != "." {
        if exists(directory + "/Package.swift") && isDirectory(directory + "/boards") {
          candidates.append(directory + "/boards")
          break
        }
        directory = BoardLoader.directory(of: directory)
      }
      candidates.append(executableDirectory + "/../share/stressmon/boards")
    }
    candidates += ["/usr/local/share/stressmon/boards", "/usr/share/stressmon/boards"]
    let workingDirectory = FileManager.default.currentDirectoryPath
    candidates.append(workingDirectory + "/boards")
    var seen: Set<String> = []
    let directories = candidates.map(normalise).filter { isDirectory($0) && seen.insert($0).inserted }
    return BoardCatalog(directories: directories)
  }

  // MARK: - Public

  /// The board file for a name or a path.
  public func resolve(_ nameOrPath: String) throws(ConfigError) -> String {
    if Self.looksLikePath(nameOrPath) {
      guard Self.exists(nameOrPath) else { throw .notFound(path: nameOrPath) }
      return nameOrPath
    }
    for directory in directories {
      let candidate = directory + "/" + nameOrPath + ".toml"
      if Self.exists(candidate) { return candidate }
    }
    throw .unknownBoard(name: nameOrPath, searched: directories, available: availableBoards())
  }

  /// Loads a board by name or path.
  public func load(_ nameOrPath: String) throws(ConfigError) -> Board {
    try BoardLoader.load(path: resolve(nameOrPath))
  }

  /// The names of every board file found, sorted, first directory winning.
  public func availableBoards() -> [String] {
    var names: Set<String> = []
    for directory in directories {
      let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      for file in files where file.hasSuffix(".toml") { names.insert(String(file.dropLast(5))) }
    }
    return names.sorted()
  }

  /// The resolved path of the running executable (`/proc/self/exe`), or nil where there is none.
  public static func currentExecutablePath() -> String? {
    if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return target }
    guard let first = CommandLine.arguments.first, first.contains("/") else { return nil }
    return first.hasPrefix("/") ? first : FileManager.default.currentDirectoryPath + "/" + first
  }

  /// The board file name for the Raspberry Pi this runs on, from the device tree's model string
  /// ("Raspberry Pi 4 Model B Rev 1.4" → "rpi4"); nil on anything else.
  public static func detectedBoardName(modelPath: String = "/proc/device-tree/model") -> String? {
    guard let data = FileManager.default.contents(atPath: modelPath) else { return nil }
    let model = String(decoding: data.filter { $0 != 0 }, as: UTF8.self)
    let known: [(String, String)] = [
      ("Raspberry Pi Zero 2", "rpizero2w"), ("Raspberry Pi 5", "rpi5"), ("Raspberry Pi 4", "rpi4"),
      ("Raspberry Pi 3", "rpi3"),
    ]
    return known.first { model.hasPrefix($0.0) }?.1
  }

  // MARK: - Private

  static func looksLikePath(_ text: String) -> Bool { text.contains("/") || text.hasSuffix(".toml") }

  private static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  private static func isDirectory(_ path: String) -> Bool {
    var directory: Bool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory
  }

  /// Removes `.` and `..` components so the paths in messages read cleanly.
  static func normalise(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") {
      if part == "." { continue }
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(part)
    }
    return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
  }
}
