import ArgumentParser
import Foundation
import Hub
import Logging

/// `stressmon-hub`: the server stressmon devices sync to, the kiosk page and the fleet pages.
@main
struct HubCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stressmon-hub",
    abstract: "Receives measurements from stressmon devices and serves them to readers, kiosks and the fleet page.",
    discussion: """
      Storage is one SQLite file by default (a Pi or a laptop), or PostgreSQL for a fleet of hubs behind a \
      load balancer (they keep no state of their own).

      First run:
        stressmon-hub token create --device desk-1 --out desk-1.token     # the device's write-only token
        stressmon-hub token create --reader --out reader.token            # reads every device
        stressmon-hub serve --host 0.0.0.0 --port 8080
      Then on the device:  stressmon sync --hub https://HOST:8080 --token-file desk-1.token

      The hub is private by default: it listens on 127.0.0.1 unless --host says otherwise, and every read \
      needs a reader token (a kiosk page needs its kiosk key). Every option can also come from the environment \
      (STRESSMON_HUB_<OPTION>, e.g. STRESSMON_HUB_PORT); a flag wins over the environment. Errors are one line \
      on stderr; exit codes follow sysexits (64 usage, 66 no input, 69 unavailable, 70 internal, 73 cannot create).
      """,
    version: HubRoutes.version,
    subcommands: [ServeCommand.self, TokenCommand.self, DeviceCommand.self]
  )

  static func main() async {
    do {
      var command = try parseAsRoot()
      let serve = command as? ServeCommand
      let format = try HubEnvironment.logFormat(flag: serve?.logFormat)
      let level = HubEnvironment.value("STRESSMON_LOG").flatMap { Logger.Level(rawValue: $0) }
        ?? (serve == nil ? .notice : .info)
      LoggingSystem.bootstrap { label in HubLogHandler(label: label, format: format, level: level) }
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

/// A failure the user can act on: one line on stderr and a sysexits code.
struct HubFailure: Error {
  var code: Int32
  var message: String

  static func usage(_ message: String) -> HubFailure { HubFailure(code: 64, message: message) }
}

/// Settings from the environment (`STRESSMON_HUB_…`) under the flags: a hub run by systemd or in a container
/// is configured without a command line.
enum HubEnvironment {
  static func value(_ name: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
    return value
  }

  /// The flag's value, else `STRESSMON_HUB_<name>`, else nil.
  static func string(_ flag: String?, _ name: String) -> String? {
    flag ?? value("STRESSMON_HUB_" + name)
  }

  /// A number from the flag, else the environment, else `fallback`; a malformed environment value is an error.
  static func number<T: LosslessStringConvertible>(_ flag: T?, _ name: String, _ fallback: T) throws -> T {
    if let flag { return flag }
    guard let text = value("STRESSMON_HUB_" + name) else { return fallback }
    guard let parsed = T(text) else {
      throw HubFailure.usage("STRESSMON_HUB_\(name)='\(text)' is not a number")
    }
    return parsed
  }

  static func logFormat(flag: String?) throws -> HubLogFormat {
    let text = string(flag, "LOG_FORMAT") ?? "logfmt"
    guard let format = HubLogFormat(rawValue: text) else {
      throw HubFailure.usage("log format '\(text)' must be logfmt or json")
    }
    return format
  }
}
