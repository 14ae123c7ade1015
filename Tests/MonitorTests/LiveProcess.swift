import Foundation
import Synchronization
import TestSupport

/// The built `stressmon` running as a child process, its stdout read line by line as it comes (the test reacts to
/// events, e.g. sends SIGTERM while the panel is refreshing).
final class LiveProcess {
  /// What the reading threads collect.
  private final class Output: Sendable {
    let lines = Mutex<[String]>([])
    let errors = Mutex<String>("")
    let finished = Mutex(false)
  }

  private let process: Process
  private let collected = Output()

  /// - Parameters:
  ///   - environment: variables added to this process's environment for the child.
  ///   - journalStream: set `JOURNAL_STREAM` to the child's stderr pipe, as systemd does for the journal.
  init(
    _ arguments: [String], workingDirectory: String, environment: [String: String] = [:], journalStream: Bool = false
  ) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLIRunner.productsDirectory + "/stressmon")
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
    let out = Pipe()
    let err = Pipe()
    var variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    if journalStream {
      var status = stat()
      fstat(err.fileHandleForWriting.fileDescriptor, &status)
      variables["JOURNAL_STREAM"] = "\(status.st_dev):\(status.st_ino)"
    }
    process.environment = variables
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    let collected = collected
    let reader = Thread {
      var pending = Data()
      while true {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: 0x0A) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          collected.lines.withLock { $0.append(line) }
        }
      }
      collected.finished.withLock { $0 = true }
    }
    err.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      if !data.isEmpty { collected.errors.withLock { $0 += String(decoding: data, as: UTF8.self) } }
    }
    self.process = process
    try process.run()
    reader.start()
  }

  var output: [String] { collected.lines.withLock { $0 } }
  var stderr: String { collected.errors.withLock { $0 } }
  var pid: Int32 { process.processIdentifier }
  var isRunning: Bool { process.isRunning }

  /// The JSON events printed so far.
  var events: [[String: Any]] {
    output.compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }

  /// Waits until an event satisfies `predicate` (only lines containing `hint` are parsed, and each line once, so
  /// the test reacts within milliseconds); nil after `timeout` seconds or when the process ended.
  func waitForEvent(timeout: Double, hint: String = "", _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
    let deadline = Date().addingTimeInterval(timeout)
    var checked = 0
    while Date() < deadline {
      let lines = output
      for line in lines[checked...] where hint.isEmpty || line.contains(hint) {
        if let event = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], predicate(event) {
          return event
        }
      }
      checked = lines.count
      if !process.isRunning && checked == output.count { return nil }
      Thread.sleep(forTimeInterval: 0.002)
    }
    return nil
  }

  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Waits for the exit; nil if it is still running after `timeout` seconds (then it is killed).
  func waitForExit(timeout: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    guard !process.isRunning else {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return nil
    }
    process.waitUntilExit()
    // Let the reader take the last lines.
    let drained = Date().addingTimeInterval(2)
    while !collected.finished.withLock({ $0 }) && Date() < drained { Thread.sleep(forTimeInterval: 0.01) }
    return process.terminationStatus
  }
}
