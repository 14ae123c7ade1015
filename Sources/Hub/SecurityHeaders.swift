import Foundation
import HTTPTypes
import Hummingbird

/// The security headers of the hub's answers, in one place: `X-Content-Type-Options: nosniff` on every answer
/// (a browser never guesses a type: JSON stays JSON), HSTS when the hub serves TLS itself (a proxy in front sets
/// its own), and the pages' Content-Security-Policy, whose `script-src` allows only script files from the hub.
public enum SecurityHeaders {
  static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
  static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
  /// One year, the usual minimum for HSTS preload lists; subdomains are not the hub's to speak for.
  static let hstsValue = "max-age=31536000"

  /// Adds the headers every answer carries.
  static func apply(to headers: inout HTTPFields, tls: Bool) {
    headers[contentTypeOptions] = "nosniff"
    if tls { headers[strictTransportSecurity] = hstsValue }
  }

  /// The pages' policy: scripts only as files from the hub (`PageScript`), never inline, so text that reached a page
  /// from a row can never run; styles inline (each page carries its own).
  public static let contentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

/// Puts `SecurityHeaders` on every answer of the router, refusals included.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Whether the hub serves TLS itself (then HSTS).
  let tls: Bool

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    var response: Response
    do {
      response = try await next(request, context)
    } catch let error as any HTTPResponseError {
      response = try error.response(from: request, context: context)
    }
    SecurityHeaders.apply(to: &response.headers, tls: tls)
    return response
  }
}
