import ArgumentParser
import CommandSupport
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

      First run, on a network you trust (plain HTTP). On the hub:
        stressmon-hub token create --device desk-1 --out desk-1.token
        stressmon-hub token create --reader --out reader.token
        stressmon-hub serve --host 0.0.0.0 --port 8080
      desk-1.token is the device's write-only token: copy it to the device (mode \
      0600). reader.token reads every device. On the device:
        stressmon sync --once --insecure-http --hub http://HOST:8080 \\
          --token-file desk-1.token
      The fleet page: http://HOST:8080/devices, with reader.token's contents as the \
      password. Over a network you do not trust, serve HTTPS (add --tls-cert hub.pem \
      --tls-key hub.key to serve) and sync to https://HOST:8080 (with --ca-file \
      ca.pem for a private CA) instead of --insecure-http.

      The hub is private by default: it listens on 127.0.0.1 unless --host says otherwise, and every read \
      needs a reader token (a kiosk page needs its kiosk key). Every option can also come from the environment \
      (STRESSMON_HUB_<OPTION>, e.g. STRESSMON_HUB_PORT); a flag wins over the environment. Errors are one line \
      on stderr; exit codes follow sysexits (64 usage, 66 no input, 69 unavailable, 70 internal, 73 cannot create).
      """,
    version: HubRoutes.version,
    subcommands: [ServeCommand.self, TokenCommand.self, DeviceCommand.self]
  )

  static func main() async {
    await CommandMain.run(HubCommand.self) { command in
      let serve = command as? ServeCommand
      let format = try HubEnvironment.setting(serve?.logFormat, "LOG_FORMAT", HubParse.logFormat) ?? .logfmt
      let level = HubEnvironment.value("STRESSMON_LOG").flatMap { Logger.Level(rawValue: $0) }
        ?? (serve == nil ? .notice : .info)
      LoggingSystem.bootstrap { label in HubLogHandler(label: label, format: format, level: level) }
    }
  }
}
