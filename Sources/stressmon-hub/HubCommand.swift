import ArgumentParser
import Foundation
import Hub
import Hummingbird
import Logging
import NIOSSL

/// `stressmon-hub`: the server stressmon devices sync to, and the kiosk page.
@main
struct HubCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stressmon-hub",
    abstract: "Receives measurements from stressmon devices and serves their latest category to kiosks.",
    discussion: """
      Storage is one SQLite file by default (a Pi or a laptop), or PostgreSQL for a fleet of hubs behind a \
      load balancer (they keep no state of their own).

      First run:
        stressmon-hub token create --device desk-1 --db hub.sqlite   # prints the device's token once
        stressmon-hub serve --db hub.sqlite --port 8080
      Then on the device:  stressmon sync --hub https://HOST:8080 --token-file TOKEN

      With --tls-cert and --tls-key the hub serves HTTPS itself (devices verify it, e.g. with \
      'stressmon sync --ca-file' for a private CA); without them it speaks plain HTTP, for a TLS reverse proxy \
      or a trusted network (the device then needs --insecure-http). Errors are one line on stderr; exit codes follow sysexits (64 usage, 69 unavailable, \
      70 internal, 73 cannot create).
      """,
    version: HubRoutes.version,
    subcommands: [ServeCommand.self, TokenCommand.self]
  )

  static func main() async {
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      let level = ProcessInfo.processInfo.environment["STRESSMON_LOG"].flatMap { Logger.Level(rawValue: $0) }
      handler.logLevel = level ?? .notice
      return handler
    }
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch let failure as HubFailure {
      FileHandle.standardError.write(Data("stressmon-hub: \(failure.message)\n".utf8))
      Foundation.exit(failure.code)
    } catch {
      exit(withError: error)
    }
  }
}

/// Where the hub keeps its data, as the user chose it.
struct StorageOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("SQLite database file (created if missing).", valueName: "path"))
  var db: String = "stressmon-hub.sqlite"

  @Option(
    name: .long,
    help: ArgumentHelp("Use PostgreSQL instead of SQLite: postgres://user[:password]@host[:port]/database.", valueName: "url"))
  var postgres: String?

  func open(logger: Logger) async throws -> any HubStorage {
    let storage: any HubStorage
    do {
      if let postgres {
        storage = try PostgresHubStorage(url: postgres, logger: logger)
      } else {
        storage = try SQLiteHubStorage(path: db)
      }
      try await storage.migrate()
    } catch {
      throw HubFailure(code: postgres == nil ? 73 : 69, message: "cannot open the hub storage: \(error)")
    }
    return storage
  }
}

struct HubFailure: Error {
  var code: Int32
  var message: String
}

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the hub: the /v1 sync API, /healthz and the kiosk page /kiosk/DEVICE.",
    discussion: """
      Examples:
        stressmon-hub serve --db /var/lib/stressmon/hub.sqlite --port 8080
        stressmon-hub serve --postgres postgres://hub@db.local/stressmon --port 8080
      Open http://HOST:8080/kiosk/DEVICE in a browser in kiosk mode to show a wearer's category.
      Stops cleanly on SIGTERM or SIGINT.
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(name: .long, help: ArgumentHelp("Address to listen on (0.0.0.0: all interfaces).", valueName: "address"))
  var host = "0.0.0.0"

  @Option(name: .long, help: ArgumentHelp("TCP port to listen on.", valueName: "port"))
  var port = 8080

  @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain: serve HTTPS (with --tls-key).", valueName: "path"))
  var tlsCert: String?

  @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "path"))
  var tlsKey: String?

  @Option(name: .customLong("stale-after"), help: ArgumentHelp("Kiosk stale-data warning after this many seconds without a new window.", valueName: "s"))
  var staleAfter: Double = 600

  func run() async throws {
    guard (0...65535).contains(port) else { throw HubFailure(code: 64, message: "--port \(port) must be within 0-65535") }
    guard staleAfter > 0 else { throw HubFailure(code: 64, message: "--stale-after must be positive") }
    guard (tlsCert == nil) == (tlsKey == nil) else {
      throw HubFailure(code: 64, message: "--tls-cert and --tls-key go together")
    }
    var tls: TLSConfiguration?
    if let tlsCert, let tlsKey {
      do {
        tls = try HubTLSFiles(certificateChain: tlsCert, privateKey: tlsKey).configuration()
      } catch {
        throw HubFailure(code: 66, message: "\(error)")
      }
    }
    let logger = Logger(label: "stressmon.hub")
    let store = try await storage.open(logger: logger)
    let scheme = tls == nil ? "http" : "https"
    let app = try HubServer.application(
      storage: store, host: host, port: port, options: HubOptions(staleAfter: staleAfter), tls: tls, logger: logger
    ) { channel in
      logger.notice(
        "listening",
        metadata: ["address": "\(scheme)://\(channel.localAddress?.description ?? "?")", "storage": "\(store.kind)"])
    }
    do {
      try await app.runService()
    } catch {
      try? await store.close()
      throw HubFailure(code: 69, message: "the server stopped: \(error) (is port \(port) already in use?)")
    }
    try? await store.close()
  }
}

struct TokenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Manage device tokens.",
    subcommands: [TokenCreateCommand.self]
  )
}

struct TokenCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Create a token for one device and print it (once: the hub keeps only its SHA-256).",
    discussion: """
      A device may write only its own rows: the token is bound to --device. Put the printed token in a file \
      readable only by the stressmon service (chmod 600) and pass it with 'stressmon sync --token-file'.
      Example:  stressmon-hub token create --device desk-1 --db hub.sqlite > desk-1.token
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(name: .long, help: ArgumentHelp("The device id the token may write for (A-Z a-z 0-9 . _ -).", valueName: "id"))
  var device: String

  @Flag(name: .long, help: "Print one JSON object {device, token} on stdout.")
  var json = false

  func run() async throws {
    let logger = Logger(label: "stressmon.hub")
    let store = try await storage.open(logger: logger)
    let token: String
    do {
      token = try await HubTokens.create(deviceId: device, storage: store, now: Date().timeIntervalSince1970)
    } catch let error as HubStorageError {
      try? await store.close()
      throw HubFailure(code: 64, message: error.message)
    }
    try? await store.close()
    if json {
      print("{\"device\":\"\(device)\",\"token\":\"\(token)\"}")
    } else {
      print(token)
    }
  }
}
