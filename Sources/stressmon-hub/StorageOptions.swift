import ArgumentParser
import CommandSupport
import Foundation
import Hub
import Logging

/// Where the hub keeps its data, as the user chose it (flags, else `STRESSMON_HUB_DB`, `STRESSMON_HUB_POSTGRES`,
/// `STRESSMON_HUB_POSTGRES_PASSWORD_FILE`, `PGPASSWORD`).
struct StorageOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "SQLite database file, created 0600 if missing [STRESSMON_HUB_DB; default $STATE_DIRECTORY/hub.sqlite under "
        + "systemd, else ~/.local/state/stressmon-hub/hub.sqlite].",
      valueName: "path"))
  var db: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Use PostgreSQL: postgres://user@host[:port]/db[?sslmode=verify-full&sslrootcert=ca.pem] "
        + "[STRESSMON_HUB_POSTGRES]. No password here: argv is public.",
      valueName: "url"), transform: HubParse.postgres)
  var postgres: PostgresURL?

  @Option(
    name: .customLong("postgres-password-file"),
    help: ArgumentHelp(
      "File holding the PostgreSQL password [STRESSMON_HUB_POSTGRES_PASSWORD_FILE; or PGPASSWORD].", valueName: "path"))
  var postgresPasswordFile: String?

  func validate() throws {
    if case .refused(let reason)? = postgres { throw ValidationError("--postgres: \(reason)") }
  }

  /// The PostgreSQL settings: the flag's URL (parsed when the command line was), else STRESSMON_HUB_POSTGRES,
  /// which may hold a password (the environment is not public); nil for SQLite.
  func postgresOptions() throws -> PostgresConnectionOptions? {
    if case .parsed(let options)? = postgres { return options }
    guard let url = HubEnvironment.value("STRESSMON_HUB_POSTGRES") else { return nil }
    do {
      return try PostgresConnectionOptions(url: url)
    } catch {
      throw CLIFailure.usage("STRESSMON_HUB_POSTGRES: \(error)")  // the error redacts a password
    }
  }

  /// Opens the storage. `create`: a missing SQLite file (and its default directory) is made; commands that only
  /// read or change what exists pass false, so a mistyped --db is an error (66) rather than a new, empty hub.
  func open(logger: Logger, create: Bool = true) async throws -> any HubStorage {
    let storage: any HubStorage
    let postgres = try postgresOptions()
    do {
      if var options = postgres {
        if let password = try password() { options.password = password }
        storage = try PostgresHubStorage(options: options, logger: logger)
      } else {
        let path = try HubEnvironment.setting(db, "DB") ?? Self.defaultDatabase(create: create)
        storage = try SQLiteHubStorage(path: path, create: create)
      }
    } catch let error as HubStorageError {
      // A missing file for a command that only reads is 66; a PostgreSQL URL that does not parse is a usage error;
      // a SQLite file that cannot be opened or made, 73.
      if error.missing { throw CLIFailure(code: 66, message: error.message) }
      throw CLIFailure(code: postgres != nil ? 64 : 73, message: "\(error)")
    }
    do {
      try await storage.migrate()
    } catch {
      try? await storage.close()
      throw CLIFailure(code: postgres != nil ? 69 : 73, message: "cannot open the hub storage: \(error)")
    }
    return storage
  }

  /// Opens the storage, runs `body`, closes the storage whatever happened. `create` as for `open`.
  func with<T>(create: Bool = false, _ body: (any HubStorage) async throws -> T) async throws -> T {
    let store = try await open(logger: Logger(label: "stressmon.hub"), create: create)
    do {
      let result = try await body(store)
      try? await store.close()
      return result
    } catch {
      try? await store.close()
      throw error
    }
  }

  /// The SQLite file when neither `--db` nor `STRESSMON_HUB_DB` names one: `hub.sqlite` in systemd's
  /// `StateDirectory`, else in `$XDG_STATE_HOME/stressmon-hub` (`~/.local/state/stressmon-hub`), whose directory is
  /// made 0700. Never the working directory: a hub started from a source tree or `/` would quietly make a database
  /// there, and one started from elsewhere would not find it.
  static func defaultDatabase(
    environment: [String: String] = ProcessInfo.processInfo.environment, create: Bool = true
  ) throws -> String {
    let given = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    // Hubs before this default kept the file in the working directory: say so rather than start a second, empty one.
    if FileManager.default.fileExists(atPath: "stressmon-hub.sqlite") {
      throw CLIFailure.usage(
        "found stressmon-hub.sqlite in the working directory (the old default); pass --db stressmon-hub.sqlite to "
          + "keep using it, or move it to the default ~/.local/state/stressmon-hub/hub.sqlite")
    }
    if let state = given("STATE_DIRECTORY") {
      // systemd made it (StateDirectory=); several are separated by ':', the first is ours.
      return String(state.split(separator: ":").first ?? Substring(state)) + "/hub.sqlite"
    }
    let directory: String
    if let xdg = given("XDG_STATE_HOME") {
      directory = xdg + "/stressmon-hub"
    } else if let home = given("HOME") {
      directory = home + "/.local/state/stressmon-hub"
    } else {
      throw CLIFailure.usage("no database given and no HOME to keep one in; pass --db PATH or set STRESSMON_HUB_DB")
    }
    guard create else { return directory + "/hub.sqlite" }
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw CLIFailure(code: 73, message: "cannot create \(directory) for the hub database; pass --db PATH")
    }
    return directory + "/hub.sqlite"
  }

  private func password() throws -> String? {
    if let path = HubEnvironment.setting(postgresPasswordFile, "POSTGRES_PASSWORD_FILE") {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw CLIFailure.noInput("cannot read the PostgreSQL password file \(path); check the path and permissions")
      }
      return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
    return HubEnvironment.value("PGPASSWORD")
  }
}
