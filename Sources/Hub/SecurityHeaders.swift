import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The security headers of the hub's answers, in one place: `X-Content-Type-Options: nosniff` on every answer
/// (a browser never guesses a type: JSON stays JSON), HSTS when the hub serves TLS itself (a proxy in front sets
/// its own), and the pages' Content-Security-Policy, whose `script-src` allows only the hub's own scripts: files
/// from the hub ('self') and the inline scripts a page declares, by their SHA-256 (no 'unsafe-inline', so text
/// that reached a page from a row can never run).
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

  /// The policy of an HTML page that embeds `scripts` inline (each exactly as between its `<script>` tags).
  public static func contentSecurityPolicy(scripts: [String] = []) -> String {
    let hashes = scripts.map { " '\(hash(script: $0))'" }.joined()
    return "default-src 'self'; script-src 'self'\(hashes); style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
      + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  }

  /// `sha256-BASE64` of a script's text (CSP Level 2 §4.2.4): what `script-src` lists to allow it inline.
  public static func hash(script: String) -> String {
    "sha256-" + Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
  }
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
