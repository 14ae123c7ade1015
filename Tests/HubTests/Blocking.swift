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

/// Runs a program to its end (in `directory` when given), stdout and stderr together through a file: a pipe
/// nobody reads fills and stalls a chatty child such as chromium. Blocking: call it through `offload`.
func runProgram(_ executable: String, _ arguments: [String], in directory: String? = nil) throws
  -> (status: Int32, output: String)
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
  let log = NSTemporaryDirectory() + "program-\(UUID().uuidString).log"
  _ = FileManager.default.createFile(atPath: log, contents: nil)
  defer { try? FileManager.default.removeItem(atPath: log) }
  let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
  process.standardOutput = handle
  process.standardError = handle
  try process.run()
  process.waitUntilExit()
  try? handle.close()
  return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
}
