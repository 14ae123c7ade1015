import Foundation

/// Runs the built `stressmon` binary (or another product) as a child process, as a user would.
public enum CLIRunner {
  public struct Result: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  /// The directory holding the built products: the test bundle sits beside them.
  public static let productsDirectory: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
    while url.path.count > 1 && !FileManager.default.fileExists(atPath: url.appendingPathComponent("stressmon").path) {
      url = url.deletingLastPathComponent()
    }
    return url.path
  }()

  public static func run(
    _ arguments: [String], product: String = "stressmon", environment: [String: String] = [:],
    stdin: String? = nil, workingDirectory: String? = nil
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: productsDirectory + "/" + product)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    // Read both pipes concurrently so a chatty child cannot deadlock on a full pipe.
    // The reader is a thread of its own: a block on a global queue could wait behind other tests' work for minutes
    // on a loaded machine, and the child's run would seem to last that long.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    let reader = Thread {
      errData = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }

  /// Parses stdout as a JSON object.
  public static func json(_ result: Result) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    guard let dictionary = object as? [String: Any] else { throw NotAnObject(text: result.stdout) }
    return dictionary
  }

  public struct NotAnObject: Error { public var text: String }
}
