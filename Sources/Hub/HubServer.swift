import Hummingbird
import Logging
import NIOCore

/// Builds the hub application: the routes over a storage, bound to an address.
public enum HubServer {
  public static func application(
    storage: any HubStorage, host: String = "0.0.0.0", port: Int = 8080, options: HubOptions = HubOptions(),
    logger: Logger = Logger(label: "stressmon.hub"),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    Application(
      router: HubRoutes.router(storage: storage, options: options, logger: logger),
      configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "stressmon-hub"),
      onServerRunning: onServerRunning,
      logger: logger
    )
  }
}
