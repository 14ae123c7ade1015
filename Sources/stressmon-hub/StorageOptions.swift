import ArgumentParser
import Foundation
import Hub
import Logging

/// Where the hub keeps its data, as the user chose it (flags, else `STRESSMON_HUB_DB`, `STRESSMON_HUB_POSTGRES`,
/// `STRESSMON_HUB_POSTGRES_PASSWORD_FILE`, `PGPASSWORD`).
struct StorageOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("SQLite database file, created 0600 if missing [STRESSMON_HUB_DB].", valueName: "path"))
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

  func open(logger: Logger) async throws -> any HubStorage {
    let storage: any HubStorage
    do {
      if let url = HubEnvironment.string(postgres, "POSTGRES") {
        // A password may come in a URL from the environment, never in one from argv.
        var options = try PostgresConnectionOptions(url: url, allowPasswordInURL: postgres == nil)
        if let password = try password() { options.password = password }
        storage = try PostgresHubStorage(options: options, logger: logger)
      } else {
        storage = try SQLiteHubStorage(path: HubEnvironment.string(db, "DB") ?? "stressmon-hub.sqlite")
      }
    } catch let error as HubStorageError {
      throw HubFailure.usage("\(error)")
    }
    do {
      try await storage.migrate()
    } catch {
      try? await storage.close()
      throw HubFailure(code: isPostgres ? 69 : 73, message: "cannot open the hub storage: \(error)")
    }
    return storage
  }

  /// Opens the storage, runs `body`, closes the storage whatever happened.
  func with<T>(_ body: (any HubStorage) async throws -> T) async throws -> T {
    let store = try await open(logger: Logger(label: "stressmon.hub"))
    do {
      let result = try await body(store)
      try? await store.close()
      return result
    } catch {
      try? await store.close()
      throw error
    }
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
