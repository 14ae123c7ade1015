import Foundation
import Hummingbird
import Logging
import SyncWire

/// A refusal with its HTTP status and the `{error, message}` body that says what is wrong.
public struct HubError: Error, Sendable {
  public var status: HTTPResponse.Status
  public var body: ErrorBody
  public var headers: HTTPFields

  public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, headers: HTTPFields = [:]) {
    self.status = status
    self.body = ErrorBody(error: code, message: message)
    self.headers = headers
  }

  var response: Response {
    var response = JSONResponse.make(status: status, body)
    for field in headers { response.headers.append(field) }
    return response
  }
}

/// Turns every failure into a JSON `{error, message}` answer: refusals keep their status, framework errors
/// (unknown route, body too large) get a code, anything else is a logged 500 without internals.
struct HubErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  /// The router's routes, to tell "no such path" (404) from "not with this method" (405).
  let routes: RouteTable

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do {
      return try await next(request, context)
    } catch let error as HubError {
      return error.response
    } catch let error as any HTTPResponseError {
      if error.status == .notFound {
        let allowed = routes.allowedMethods(for: request.uri.path)
        if !allowed.isEmpty {
          return HubError(
            .methodNotAllowed, "method_not_allowed",
            "\(request.uri.path) answers \(allowed.joined(separator: ", ")), not \(request.method)",
            headers: [.allow: allowed.joined(separator: ", ")]
          ).response
        }
      }
      let code: String
      switch error.status.code {
      case 404: code = "not_found"
      case 405: code = "method_not_allowed"
      case 413: code = "payload_too_large"
      case 400: code = "bad_request"
      default: code = "http_\(error.status.code)"
      }
      let message = (error as? HTTPError)?.body ?? "\(error.status.reasonPhrase) for \(request.method) \(request.uri.path)"
      return HubError(error.status, code, message).response
    } catch {
      context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
      return HubError(.internalServerError, "internal", "the hub could not complete the request; see its log").response
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
