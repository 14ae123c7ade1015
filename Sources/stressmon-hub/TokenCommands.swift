import ArgumentParser
import CommandSupport
import Foundation
import Hub
import Logging
import Platform

struct TokenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "token",
    abstract: "Create, list and revoke tokens (devices write, readers read, kiosk keys open one kiosk page).",
    subcommands: [TokenCreateCommand.self, TokenListCommand.self, TokenRevokeCommand.self]
  )
}

struct TokenCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create",
    abstract: "Create a token and print it (once: the hub keeps only its SHA-256).",
    discussion: """
      Three kinds:
        --device ID                a device's token: it may only upload that device's rows
        --reader [--device ID]     reads the feed, latest, fleet pages and /metrics, of one device or all
        --kiosk --device ID        a kiosk key: prints the URL the wall display opens (the key is in it)
      --out FILE writes the token to a new file readable only by you (0600). Examples:
        stressmon-hub token create --device desk-1 --out desk-1.token
        stressmon-hub token create --kiosk --device desk-1 --url http://hub.local:8080
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(name: .long, help: ArgumentHelp("The device the token writes, reads or shows (A-Z a-z 0-9 . _ -).", valueName: "id"))
  var device: String?

  @Flag(name: .long, help: "A reader token (of --device, or of every device without it).")
  var reader = false

  @Flag(name: .long, help: "A kiosk key for --device's kiosk page.")
  var kiosk = false

  @Option(name: .long, help: ArgumentHelp("Write the token to this new file (mode 0600) instead of stdout.", valueName: "path"))
  var out: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "With --kiosk: the hub's address as the display reaches it [default: http(s)://THIS-HOST:PORT from "
        + "STRESSMON_HUB_HOST, _PORT and _TLS_CERT, as serve reads them].",
      valueName: "http(s)://host:port"), transform: HubParse.baseURL)
  var url: String?

  @Flag(name: .long, help: "Print one JSON object {id, kind, device, token, url} (token and url omitted with --out).")
  var json = false

  func run() async throws {
    guard !(reader && kiosk) else { throw CLIFailure.usage("--reader and --kiosk are different kinds; pick one") }
    let kind: TokenKind = reader ? .reader : kiosk ? .kiosk : .device
    guard url == nil || kind == .kiosk else { throw CLIFailure.usage("--url is for a kiosk key's URL; add --kiosk") }
    guard device != nil || kind == .reader else {
      throw CLIFailure.usage("a \(kind.rawValue) token needs --device ID (a reader without it reads every device)")
    }
    // The file first: a path that cannot be created leaves no token behind in the hub.
    let file = try out.map { try PrivateFile.create($0) }
    let created: (id: String, token: String)
    do {
      created = try await storage.with(create: true) { store in
        try await HubTokens.create(kind: kind, deviceId: device, storage: store, now: Date().timeIntervalSince1970)
      }
    } catch let error as HubStorageError {
      throw CLIFailure.usage(error.message)
    }
    if let file, let out { try file.write(created.token + "\n", path: out) }
    if json {
      var object: [String: String] = ["id": created.id, "kind": kind.rawValue]
      if let device { object["device"] = device }
      if out == nil { object["token"] = created.token }
      if kind == .kiosk, let device, out == nil {
        object["kiosk_path"] = "/kiosk/\(device)?key=\(created.token)"
        object["url"] = try kioskURL(device, key: created.token)
      }
      let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      print(String(decoding: data, as: UTF8.self))
    } else if kind == .kiosk, let device, out == nil {
      print(try kioskURL(device, key: created.token))
    } else if out == nil {
      print(created.token)
    } else {
      print("Created \(kind.rawValue) token \(created.id) in \(out ?? "")")
      if kind == .kiosk, let device {
        print("The display opens \(try kioskURL(device, key: "")) followed by the key in \(out ?? "")")
      }
    }
  }

  /// The kiosk page's full URL: `--url`, else this host as `serve` would listen on it.
  private func kioskURL(_ device: String, key: String) throws -> String {
    "\(try url ?? Self.defaultBaseURL())/kiosk/\(device)?key=\(key)"
  }

  /// http(s)://HOST:PORT from the settings `serve` reads: TLS when STRESSMON_HUB_TLS_CERT is set; the host it
  /// listens on, or this machine's name when that is every interface (or unset: a display is elsewhere).
  static func defaultBaseURL() throws -> String {
    let scheme = HubEnvironment.value("STRESSMON_HUB_TLS_CERT") == nil ? "http" : "https"
    let port = try HubEnvironment.setting(nil, "PORT", HubParse.port) ?? 8080
    var host = HubEnvironment.value("STRESSMON_HUB_HOST") ?? "0.0.0.0"
    if ["0.0.0.0", "::", "[::]"].contains(host) { host = ProcessInfo.processInfo.hostName }
    if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
    return "\(scheme)://\(host):\(port)"
  }
}

struct TokenListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List tokens: id, kind, device, when created and last used (never the token).")

  @OptionGroup var storage: StorageOptions

  @Flag(name: .long, help: "Print a JSON array.")
  var json = false

  func run() async throws {
    let tokens = try await storage.with { store in try await store.tokens() }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      print(String(decoding: try encoder.encode(tokens), as: UTF8.self))
      return
    }
    print("ID            KIND    DEVICE            CREATED (UTC)      LAST USED (UTC)")
    for token in tokens {
      let device = token.deviceId ?? (token.kind == .reader ? "(all)" : "-")
      print(
        pad(token.id, 14) + pad(token.kind.rawValue, 8) + pad(device, 18) + pad(Self.time(token.createdAt), 19)
          + (token.lastUsedAt.map(Self.time) ?? "never"))
    }
  }

  private func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
  }

  static func time(_ epoch: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime]
    return String(formatter.string(from: Date(timeIntervalSince1970: epoch)).prefix(16))
  }
}

struct TokenRevokeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke", abstract: "Revoke a token by its id (from 'token list'); it stops working at once.")

  @OptionGroup var storage: StorageOptions

  @Argument(help: ArgumentHelp("The token's id (12 hex digits, from 'token list').", valueName: "id"))
  var id: String

  @Flag(name: .long, help: "Print {revoked: id}.")
  var json = false

  func run() async throws {
    let found = try await storage.with { store in try await store.revokeToken(id: id) }
    guard found else { throw CLIFailure.usage("no token with id '\(id)'; see 'stressmon-hub token list'") }
    print(json ? "{\"revoked\":\(JSONString.literal(id))}" : "Revoked token \(id)")
  }
}

/// A file that holds a secret: created new, readable by the owner only, written once.
final class PrivateFile {
  private let file: FileDescriptor

  private init(file: FileDescriptor) {
    self.file = file
  }

  deinit { try? file.close() }

  static func create(_ path: String) throws -> PrivateFile {
    do {
      return PrivateFile(
        file: try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive], permissions: 0o600))
    } catch {
      let reason = error == Errno(rawValue: EEXIST) ? "it exists; remove it or choose another path" : "\(error)"
      throw CLIFailure(code: 73, message: "cannot create \(path): \(reason)")
    }
  }

  func write(_ contents: String, path: String) throws {
    do {
      try file.writeAll(Array(contents.utf8))
      try file.sync()
    } catch {
      throw CLIFailure(code: 74, message: "cannot write \(path): \(error)")
    }
  }
}
