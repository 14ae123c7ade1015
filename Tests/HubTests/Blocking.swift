import Foundation

/// Runs blocking work (waiting for a child process) on its own thread. Test code must not block the
/// cooperative pool: on a 2-core machine two blocked waits would starve the hub's own request handlers, and
/// the child (chromium, `stressmon sync`) would wait for a hub that can never answer.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      continuation.resume(with: Result { try work() })
    }
    thread.start()
  }
}

import TestSupport

/// `CLIRunner.run` off the cooperative pool.
func runCLI(_ arguments: [String]) async throws -> CLIRunner.Result {
  try await offload { try CLIRunner.run(arguments) }
}
