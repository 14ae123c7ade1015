import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per request (`request`, at info) with a request id, and the id in the `X-Request-Id` answer
/// header. The id is Hummingbird's per-request id, or the caller's `X-Request-Id` when it is a plain token (a
/// proxy in front keeps its own id through). The query string is never logged: it may carry a reader key.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
  static var requestIdHeader: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    var context = context
    if let incoming = request.headers[Self.requestIdHeader], Self.isPlainId(incoming) {
      context.logger[metadataKey: "hb.request.id"] = .string(incoming)
    }
    let id = context.id
    let started = ContinuousClock.now
    var response: Response
    do {
      response = try await next(request, context)
    } catch let error as any HTTPResponseError {
      // A refusal (`HubError`, Hummingbird's own): its answer, here, so that it carries the request id too.
      response = try error.response(from: request, context: context)
    } catch {
      // A malformed request (`HTTPParserError`): the server answers 400 and closes the connection.
      log(request, context: context, status: 400, since: started)
      throw error
    }
    response.headers[Self.requestIdHeader] = id
    log(request, context: context, status: Int(response.status.code), since: started)
    return response
  }

  private func log(_ request: Request, context: Context, status: Int, since started: ContinuousClock.Instant) {
    let elapsed = ContinuousClock.now - started
    let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    context.logger.info(
      "request",
      metadata: [
        "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
        "duration_ms": "\((milliseconds * 10).rounded() / 10)",
      ])
  }

  /// 1-64 characters of A-Z a-z 0-9 . _ - : nothing that could break a log line.
  static func isPlainId(_ text: String) -> Bool {
    (1...64).contains(text.utf8.count)
      && text.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
          || byte == 0x2E || byte == 0x5F || byte == 0x2D
      }
  }
}
