import Hummingbird
import SyncWire

/// The hub's request context: Hummingbird's core context plus what the route group's access middleware granted.
public struct HubRequestContext: RequestContext {
  public var coreContext: CoreRequestContextStorage
  /// Who the request authenticated as, set by `HubAccessMiddleware` (nil on the open routes).
  var granted: HubAccess.Granted?

  public init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
  }

  /// The credential the route's group checked. Throws for a route registered outside an access group (a bug).
  func credential() throws -> HubAccess.Granted {
    guard let granted else { throw HubError.internalError }
    return granted
  }
}

/// Authentication and authorisation as a router-group middleware: every route added to a group with this
/// middleware needs the group's kind of token (`HubAccess.Role`), and, when the route's path names a device,
/// a token that may read or write that device. The device id is checked for shape first (400), then the token
/// (401, 403, 429).
struct HubAccessMiddleware: RouterMiddleware {
  typealias Context = HubRequestContext

  let access: HubAccess
  let role: HubAccess.Role
  /// The path parameter that names the device the route is about (`:id`, `:device`), if any.
  let deviceParameter: String?

  init(_ access: HubAccess, _ role: HubAccess.Role, device deviceParameter: String? = nil) {
    self.access = access
    self.role = role
    self.deviceParameter = deviceParameter
  }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    var context = context
    let device = try deviceParameter.map { try HubRoutes.validDevice(context.parameters.get($0)) }
    context.granted = try await access.authorize(request, role: role, device: device)
    return try await next(request, context)
  }
}
