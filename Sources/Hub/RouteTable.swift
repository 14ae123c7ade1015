import Hummingbird
import Synchronization

/// The hub's routes as the router holds them, so that a known path asked with another method is answered
/// 405 with `Allow` (RFC 9110 §15.5.6) instead of 404, and tests can compare them with the OpenAPI document.
final class RouteTable: Sendable {
  private let routes = Mutex<[(path: RouterPath, method: String)]>([])

  func record(_ descriptions: [Router<HubRequestContext>.RouteDescription]) {
    routes.withLock { $0 = descriptions.map { ($0.path, $0.method.rawValue) } }
  }

  /// The methods a path may be asked with, sorted; empty for a path the hub does not have.
  func allowedMethods(for path: String) -> [String] {
    let segments = path.split(separator: "/", omittingEmptySubsequences: true)
    return routes.withLock { routes in
      Set(routes.filter { route in
        route.path.components.count == segments.count && zip(route.path.components, segments).allSatisfy { $0 ~= $1 }
      }.map(\.method)).sorted()
    }
  }
}
