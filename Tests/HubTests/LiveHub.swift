import Foundation
import Hub
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServerTestSupport
import Synchronization
import SyncWire

/// Faults a test puts in front of the real hub routes, one per ingest request, in order.
enum HubFault: Sendable, Equatable {
  /// Answer with this status (and Retry-After) without touching storage.
  case status(Int, retryAfter: String? = nil)
  /// Store the batch, then answer 200 with a body that is not an ingest result (a mangling proxy).
  case garbageAfterStore
  /// Store the batch, then hold the answer this long (longer than the client's timeout: a lost answer).
  case slowAfterStore(Double)
  /// Store the batch, then restart the hub before answering (the answer never leaves).
  case restartAfterStore
}

/// The real hub (real routes, real storage, real HTTP on loopback) with a fault script in front of ingest, and
/// the ability to go down and come back on the same port.
final class LiveHub: Sendable {
  let storage: any HubStorage
  private let script: Mutex<[HubFault]>
  private let served = Mutex<[HubFault?]>([])
  private let requests = Mutex<[(path: String, at: Date, query: String)]>([])
  /// Requests whose target (path and query) starts with this wait until `openGate()` (a test orders events across
  /// the browser and the hub).
  private let gate = Mutex<(path: String?, open: Bool)>((nil, true))
  private let state = Mutex<(port: Int, server: GracefulServer?)>((0, nil))
  /// Every ingest answer waits this long after storing (a slow hub), unless a fault says otherwise.
  let delayAfterStore: Double
  /// Serve HTTPS with this configuration instead of plain HTTP.
  let tls: TLSConfiguration?
  let options: HubOptions
  /// The connection guard's limits, as `stressmon-hub serve` sets them.
  let limits: ConnectionLimits
  let metrics: HubMetrics

  init(
    storage: any HubStorage, faults: [HubFault] = [], delayAfterStore: Double = 0, tls: TLSConfiguration? = nil,
    options: HubOptions = HubOptions(), limits: ConnectionLimits = ConnectionLimits(),
    metrics: HubMetrics = HubMetrics()
  ) {
    self.storage = storage
    self.metrics = metrics
    self.options = options
    self.limits = limits
    self.script = Mutex(faults)
    self.delayAfterStore = delayAfterStore
    self.tls = tls
  }

  var port: Int { state.withLock { $0.port } }
  var baseURL: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)" }
  /// Holds every request for `path` until `openGate()`.
  func closeGate(for path: String) { gate.withLock { $0 = (path, false) } }
  func openGate() { gate.withLock { $0.open = true } }

  /// Every request path the hub saw, with when.
  var requestLog: [(path: String, at: Date, query: String)] { requests.withLock { $0 } }

  /// The fault applied to each ingest request so far (nil: served normally).
  var servedFaults: [HubFault?] { served.withLock { $0 } }

  /// Starts listening (on the previous port after a stop, else an ephemeral one). Returns once bound.
  func start() async throws {
    let port = self.port
    let inner = HubRoutes.router(
      storage: storage, options: options, metrics: metrics, logger: Logger(label: "test.hub"), tls: tls != nil
    ).buildResponder()
    let responder = CallbackResponder<HubRequestContext> { [self] request, context in
      try await respond(request, context, inner)
    }
    var logger = Logger(label: "test.hub.server")
    logger.logLevel = .critical
    let (limits, tls, metrics) = (self.limits, self.tls, self.metrics)
    let server = try await GracefulServer.start(logger: logger) { onServerRunning in
      Application(
        responder: responder,
        server: try HubServer.server(limits: limits, tls: tls, metrics: metrics),
        configuration: HubServer.configuration(host: "127.0.0.1", port: port, limits: limits, logger: logger),
        onServerRunning: onServerRunning,
        logger: logger)
    }
    state.withLock { $0 = (server.port, server) }
  }

  /// Stops listening; connections in flight are cut (gracefully first: `GracefulServer.stop`).
  func stop() async {
    let server = state.withLock { state -> GracefulServer? in
      defer { state.server = nil }
      return state.server
    }
    await server?.stop()
  }

  func restart() async throws {
    await stop()
    try await start()
  }

  private func respond(
    _ request: Request, _ context: HubRequestContext, _ inner: some HTTPResponder<HubRequestContext>
  ) async throws -> Response {
    requests.withLock { $0.append((request.uri.path, Date(), request.uri.query ?? "")) }
    let target = request.uri.description
    while gate.withLock({ gate in gate.path.map { target.hasPrefix($0) } == true && !gate.open }) {
      try await Task.sleep(for: .milliseconds(10))
    }
    guard request.method == .post, request.uri.path == SyncAPI.measurementsPath else {
      return try await inner.respond(to: request, context: context)
    }
    let fault = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    served.withLock { $0.append(fault) }
    switch fault {
    case .status(let code, let retryAfter)?:
      var headers: HTTPFields = [.contentType: "application/json"]
      if let retryAfter { headers[.retryAfter] = retryAfter }
      return Response(
        status: .init(code: code), headers: headers,
        body: .init(byteBuffer: ByteBuffer(string: #"{"error":"test_fault","message":"injected \#(code)"}"#)))
    case .garbageAfterStore?:
      _ = try await inner.respond(to: request, context: context)
      let portal = ByteBuffer(string: "<html><body>Login to Wi-Fi</body></html>")
      return Response(status: .ok, body: .init(byteBuffer: portal))
    case .slowAfterStore(let seconds)?:
      let response = try await inner.respond(to: request, context: context)
      try await Task.sleep(for: .seconds(seconds))
      return response
    case .restartAfterStore?:
      _ = try await inner.respond(to: request, context: context)
      Task { try await self.restart() }
      try await Task.sleep(for: .seconds(30))
      throw CancellationError()
    case nil:
      let response = try await inner.respond(to: request, context: context)
      if delayAfterStore > 0 { try await Task.sleep(for: .seconds(delayAfterStore)) }
      return response
    }
  }
}
