import ArgumentParser
import CommandSupport
import Foundation
import Hub
import Hummingbird
import Logging
import NIOSSL

struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the hub: the /v1 sync API, /healthz, /metrics, /openapi.yaml, kiosk and fleet pages.",
    discussion: """
      Examples:
        stressmon-hub serve --db /var/lib/stressmon-hub/hub.sqlite --host 0.0.0.0 --port 8080
        STRESSMON_HUB_POSTGRES='postgres://hub@db.local/stressmon?sslmode=verify-full' \\
          STRESSMON_HUB_POSTGRES_PASSWORD_FILE=/run/credentials/hub/pg stressmon-hub serve --host 0.0.0.0
      Open http://HOST:8080/devices?key=READER_TOKEN for the fleet, and the kiosk URL printed by \
      'token create --kiosk' on a wall display. Logs go to stderr (logfmt or JSON), one line per request with a \
      request id; STRESSMON_LOG=debug|info|notice sets the level. Stops cleanly on SIGTERM or SIGINT.
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(
    name: .long,
    help: ArgumentHelp(
      "Address to listen on; 0.0.0.0 for all interfaces [STRESSMON_HUB_HOST, default 127.0.0.1].",
      valueName: "address"), transform: HubParse.host)
  var host: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "TCP port [STRESSMON_HUB_PORT, default 8080].",
      valueName: "port"), transform: HubParse.port)
  var port: Int?

  @Option(
    name: .customLong("tls-cert"),
    help: ArgumentHelp(
      "PEM certificate chain: serve HTTPS (TLS 1.2+) [STRESSMON_HUB_TLS_CERT].",
      valueName: "path"))
  var tlsCert: String?

  @Option(
    name: .customLong("tls-key"),
    help: ArgumentHelp(
      "PEM private key of --tls-cert [STRESSMON_HUB_TLS_KEY].",
      valueName: "path"))
  var tlsKey: String?

  @Option(
    name: .customLong("stale-after"),
    help: ArgumentHelp(
      "Seconds without a new window before a kiosk warns and the fleet page flags the device quiet "
        + "[STRESSMON_HUB_STALE_AFTER, 600].",
      valueName: "s"), transform: HubParse.seconds)
  var staleAfter: Double?

  @Option(
    name: .customLong("max-connections"),
    help: ArgumentHelp(
      "Open connections at most; past it a 503 [STRESSMON_HUB_MAX_CONNECTIONS, 4096, capped by the open-file limit].",
      valueName: "n"), transform: HubParse.count)
  var maxConnections: Int?

  @Option(
    name: .customLong("header-timeout"),
    help: ArgumentHelp(
      "Seconds a client may take to send a request's headers [STRESSMON_HUB_HEADER_TIMEOUT, 10].",
      valueName: "s"), transform: HubParse.seconds)
  var headerTimeout: Double?

  @Option(
    name: .customLong("body-timeout"),
    help: ArgumentHelp(
      "Seconds a client may take to send a request's body [STRESSMON_HUB_BODY_TIMEOUT, 30].",
      valueName: "s"), transform: HubParse.seconds)
  var bodyTimeout: Double?

  @Option(
    name: .customLong("idle-timeout"),
    help: ArgumentHelp(
      "Seconds an idle keep-alive connection stays open [STRESSMON_HUB_IDLE_TIMEOUT, 30].",
      valueName: "s"), transform: HubParse.seconds)
  var idleTimeout: Double?

  @Option(
    name: .customLong("send-timeout"),
    help: ArgumentHelp(
      "Seconds an answer may wait for the client to read it; a client that stops reading is cut "
        + "[STRESSMON_HUB_SEND_TIMEOUT, 30].",
      valueName: "s"), transform: HubParse.seconds)
  var sendTimeout: Double?

  @Option(
    name: .customLong("read-rate"),
    help: ArgumentHelp(
      "Reads per second per token on average; more get 429 [STRESSMON_HUB_READ_RATE, 20].",
      valueName: "n"), transform: HubParse.rate)
  var readRate: Double?

  @Option(
    name: .customLong("read-burst"),
    help: ArgumentHelp(
      "Reads one token may make at once [STRESSMON_HUB_READ_BURST, 40].",
      valueName: "n"), transform: HubParse.burst)
  var readBurst: Double?

  @Option(
    name: .customLong("log-format"),
    help: ArgumentHelp(
      "logfmt or json [STRESSMON_HUB_LOG_FORMAT, logfmt].",
      valueName: "format"), transform: HubParse.logFormat)
  var logFormat: HubLogFormat?

  func run() async throws {
    let host = try HubEnvironment.setting(host, "HOST", HubParse.host) ?? "127.0.0.1"
    let port = try HubEnvironment.setting(port, "PORT", HubParse.port) ?? 8080
    let staleAfter = try HubEnvironment.setting(staleAfter, "STALE_AFTER", HubParse.seconds) ?? 600
    let readRate = try HubEnvironment.setting(readRate, "READ_RATE", HubParse.rate) ?? 20
    let readBurst = try HubEnvironment.setting(readBurst, "READ_BURST", HubParse.burst) ?? 40
    var limits = ConnectionLimits(
      maxConnections: try HubEnvironment.setting(maxConnections, "MAX_CONNECTIONS", HubParse.count) ?? 4096,
      headerTimeout: try HubEnvironment.setting(headerTimeout, "HEADER_TIMEOUT", HubParse.seconds) ?? 10,
      bodyTimeout: try HubEnvironment.setting(bodyTimeout, "BODY_TIMEOUT", HubParse.seconds) ?? 30,
      idleTimeout: try HubEnvironment.setting(idleTimeout, "IDLE_TIMEOUT", HubParse.seconds) ?? 30,
      sendTimeout: try HubEnvironment.setting(sendTimeout, "SEND_TIMEOUT", HubParse.seconds) ?? 30)
    let tlsCert = HubEnvironment.setting(tlsCert, "TLS_CERT")
    let tlsKey = HubEnvironment.setting(tlsKey, "TLS_KEY")
    guard (tlsCert == nil) == (tlsKey == nil) else {
      throw CLIFailure.usage("--tls-cert and --tls-key go together (a certificate and its key): give both or neither")
    }
    var tls: TLSConfiguration?
    if let tlsCert, let tlsKey {
      do {
        tls = try HubTLSFiles(certificateChain: tlsCert, privateKey: tlsKey).configuration()
      } catch {
        throw CLIFailure.noInput("\(error)")
      }
    }
    let logger = Logger(label: "stressmon.hub")
    let files = HubServer.raiseOpenFileLimit()
    if limits.maxConnections > files - HubServer.reservedDescriptors {
      limits.maxConnections = max(1, files - HubServer.reservedDescriptors)
      logger.warning(
        "connection cap lowered to fit the open-file limit; raise LimitNOFILE (systemd) or ulimit -n",
        metadata: ["max_connections": "\(limits.maxConnections)", "open_file_limit": "\(files)"])
    }
    let maxConnections = limits.maxConnections
    let store = try await storage.open(logger: logger)
    let metrics = HubMetrics()
    metrics.bootstrapMetricsSystem()
    let scheme = tls == nil ? "http" : "https"
    let app = try HubServer.application(
      storage: store, host: host, port: port,
      options: HubOptions(staleAfter: staleAfter, readRate: readRate, readBurst: readBurst), limits: limits, tls: tls,
      metrics: metrics, logger: logger
    ) { channel in
      logger.notice(
        "listening",
        metadata: [
          "address": "\(scheme)://\(channel.localAddress?.ipAddress ?? "?"):\(channel.localAddress?.port ?? 0)",
          "storage": "\(store.kind)",
          "max_connections": "\(maxConnections)",
        ])
    }
    do {
      try await app.runService()
    } catch {
      try? await store.close()
      throw CLIFailure.unavailable(HubServer.describe(serverError: error, host: host, port: port))
    }
    try? await store.close()
  }
}
