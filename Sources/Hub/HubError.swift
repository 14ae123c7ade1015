import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import SyncWire

/// A refusal with its HTTP status and the `{error, message}` body that says what is wrong. An
/// `HTTPResponseError`: Hummingbird's router turns it into its answer wherever a handler or middleware throws it.
public struct HubError: HTTPResponseError, Sendable {
  public var status: HTTPResponse.Status
  public var body: ErrorBody
  public var headers: HTTPFields

  public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) {
    self.status = status
    self.body = ErrorBody(error: code, message: message)
    self.headers = headers
  }

  public func response(from request: Request, context: some RequestContext) throws -> Response {
    response
  }

  var response: Response {
    var response = JSONResponse.make(status: status, body)
    for field in headers { response.headers.append(field) }
    return response
  }

  /// A request the hub could not complete for a reason of its own (a database error): no internals in the answer.
  static let internalError = HubError(
    .internalServerError, "internal", "the hub could not complete the request; see its log")
}

/// What no route answers for itself: Hummingbird's own refusals (no such route, a body past a limit) in the
/// hub's `{error, message}` form, with 405 and `Allow` for a known path asked with another method; and an error
/// that is not an answer (a database failing) logged and answered 500 without internals. `HubError` and every
/// other `HTTPResponseError` pass through untouched, and so does a malformed request (`HTTPParserError`), which
/// the server answers 400 and closes.
struct HubFallbackMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The router's routes, to tell "no such path" (404) from "not with this method" (405).
  let routes: RouteTable

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do {
      return try await next(request, context)
    } catch let error as HTTPError {
      if error.status == .notFound {
        let allowed = routes.allowedMethods(for: request.uri.path)
        if !allowed.isEmpty {
          throw HubError(
            .methodNotAllowed, "method_not_allowed",
            "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method)",
            headers: [.allow: allowed.joined(separator: ", ")])
        }
      }
      let code: String
      switch error.status.code {
      case 404: code = "not_found"
      case 413: code = "payload_too_large"
      case 400: code = "bad_request"
      default: code = "http_\(error.status.code)"
      }
      let message = error.body ?? "\(error.status.reasonPhrase) for \(request.method) \(request.uri.path)"
      throw HubError(error.status, code, message, headers: error.headers)
    } catch let error as any HTTPResponseError {
      throw error
    } catch let error as HTTPParserError {
      throw error
    } catch {
      context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
      throw HubError.internalError
    }
  }
}

/// JSON answers with the hub's encoder settings (snake_case keys come from the wire types themselves).
enum JSONResponse {
  static func make(status: HTTPResponse.Status = .ok, _ value: some Encodable) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = (try? encoder.encode(value)) ?? Data(#"{"error":"internal","message":"encoding failed"}"#.utf8)
    return Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }
}
