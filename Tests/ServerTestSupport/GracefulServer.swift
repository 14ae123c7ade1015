import Logging
import NIOCore
import ServiceLifecycle

/// A server a test runs on loopback, in a service group as `stressmon-hub serve` runs it, so that `stop()` can shut it
/// down gracefully.
///
/// Never by cancelling the server outright: a connection accepted but not yet handed to the server loop is then
/// dropped unfinished, and NIO traps ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#3481). A
/// graceful shutdown closes the listener first, which ends the stream of accepted connections; the server loop then
/// takes every one still queued. Only once the listener is closed is the task cancelled, to cut requests still in
/// flight (a graceful shutdown alone would wait for them, and a test hub may stop itself from inside a request).
public final class GracefulServer: Sendable {
  /// The listening channel, and its port.
  public let listener: any Channel
  public var port: Int { listener.localAddress?.port ?? 0 }
  private let group: ServiceGroup
  private let task: Task<Void, any Error>

  private init(listener: any Channel, group: ServiceGroup, task: Task<Void, any Error>) {
    self.listener = listener
    self.group = group
    self.task = task
  }

  /// Starts the service `make` builds and returns once it listens. `make` is given the callback the service must call
  /// with its listening channel once bound (Hummingbird's `onServerRunning`). Detached: a group inherits the graceful
  /// shutdown of the service it is started from (a task local), and a hub restarted from one of its own requests is
  /// started from a service that is shutting down.
  public static func start<S: Service>(
    logger: Logger, _ make: (@escaping @Sendable (any Channel) async -> Void) throws -> S
  ) async throws -> GracefulServer {
    let (bound, continuation) = AsyncStream<any Channel>.makeStream()
    let service = try make { channel in
      continuation.yield(channel)
      continuation.finish()
    }
    let group = ServiceGroup(services: [service], logger: logger)
    let task = Task.detached {
      defer { continuation.finish() }  // a failed bind ends the wait below
      try await group.run()
    }
    var iterator = bound.makeAsyncIterator()
    guard let listener = await iterator.next() else {
      try await task.value  // why it did not bind (the port taken...)
      throw GracefulServerError()
    }
    return GracefulServer(listener: listener, group: group, task: task)
  }

  /// Stops listening; connections in flight are cut.
  public func stop() async {
    await group.triggerGracefulShutdown()
    try? await listener.closeFuture.get()
    task.cancel()
    _ = try? await task.value
  }
}

/// The server ended without binding and without saying why.
public struct GracefulServerError: Error, CustomStringConvertible {
  public var description: String { "the test server did not bind" }
}
