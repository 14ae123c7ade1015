import ArgumentParser
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
      valueName: "url"))
  var postgres: String?

  @Option(
    name: .customLong("postgres-password-file"),
    help: ArgumentHelp(
      "File holding the PostgreSQL password [STRESSMON_HUB_POSTGRES_PASSWORD_FILE; or PGPASSWORD].", valueName: "path"))
  var postgresPasswordFile: String?

  var isPostgres: Bool { HubEnvironment.string(postgres, "POSTGRES") != nil }

  /// Opens the storage. `create`: a missing SQLite file (and its default directory) is made; commands that only
  /// read or change what exists pass false, so a mistyped --db is an error (66) rather than a new, empty hub.
  func open(logger: Logger, create: Bool = true) async throws -> any HubStorage {
    let storage: any HubStorage
    do {
      if let url = HubEnvironment.string(postgres, "POSTGRES") {
        // A password may come in a URL from the environment, never in one from argv.
        var options = try PostgresConnectionOptions(url: url, allowPasswordInURL: postgres == nil)
        if let password = try password() { options.password = password }
        storage = try PostgresHubStorage(options: options, logger: logger)
      } else {
        let path = try HubEnvironment.string(db, "DB") ?? Self.defaultDatabase(create: create)
        storage = try SQLiteHubStorage(path: path, create: create)
      }
    } catch let error as HubStorageError {
      throw error.missing ? HubFailure(code: 66, message: error.message) : HubFailure.usage("\(error)")
    }
    do {
      try await storage.migrate()
    } catch {
      try? await storage.close()
      throw HubFailure(code: isPostgres ? 69 : 73, message: "cannot open the hub storage: \(error)")
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
      throw HubFailure.usage(
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
      throw HubFailure.usage("no database given and no HOME to keep one in; pass --db PATH or set STRESSMON_HUB_DB")
    }
    guard create else { return directory + "/hub.sqlite" }
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw HubFailure(code: 73, message: "cannot create \(directory) for the hub database; pass --db PATH")
    }
    return directory + "/hub.sqlite"
  }

  private func password() throws -> String? {
    if let path = HubEnvironment.string(postgresPasswordFile, "POSTGRES_PASSWORD_FILE") {
      guard let data = FileManager.default.contents(atPath: path) else {
        throw HubFailure(code: 66, message: "cannot read the PostgreSQL password file \(path); check the path and permissions")
      }
      return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }
    return HubEnvironment.value("PGPASSWORD")
  }
}
