import Foundation

/// A real mosquitto broker of the test's own: its config file in a temporary directory, a free loopback port,
/// optionally TLS (a certificate from `TestCertificates`) and a password file (made with mosquitto_passwd), no
/// persistence. `stop()` ends it; `start()` again brings it back on the same port (a broker restart).
public final class MosquittoBroker: @unchecked Sendable {
  public static let executable = "/usr/sbin/mosquitto"
  public static let subscriberExecutable = "/usr/bin/mosquitto_sub"

  /// Whether mosquitto and its clients are installed (scripts/setup --test installs them).
  public static var isInstalled: Bool {
    FileManager.default.isExecutableFile(atPath: executable)
      && FileManager.default.isExecutableFile(atPath: subscriberExecutable)
  }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public let port: Int
  public let directory: TemporaryDirectory
  /// The CA file clients trust, when the listener is TLS.
  public let caFile: String?
  public let credentials: (user: String, password: String)?
  private let lock = NSLock()
  private var process: Process?

  /// `tls`: a TLS listener with a certificate for localhost and 127.0.0.1. `credentials`: anonymous clients are
  /// refused; this one user may log in.
  public init(directory: TemporaryDirectory, tls: Bool = false, credentials: (user: String, password: String)? = nil)
    throws
  {
    self.directory = directory
    self.credentials = credentials
    port = try Self.freePort()
    var lines = ["listener \(port) 127.0.0.1", "persistence false", "log_dest file \(directory.file("mosquitto.log"))",
                 "log_type all", "user \(NSUserName())"]
    if tls {
      guard try TestCertificates.make(in: directory, subjectAltName: "DNS:localhost,IP:127.0.0.1") else {
        throw Failure(description: "openssl is missing")
      }
      caFile = directory.file("ca.pem")
      lines += ["cafile \(directory.file("ca.pem"))", "certfile \(directory.file("server.pem"))",
                "keyfile \(directory.file("server.key"))", "tls_version tlsv1.2"]
    } else {
      caFile = nil
    }
    if let credentials {
      let passwords = directory.file("passwords")
      try Self.run("/usr/bin/mosquitto_passwd", ["-b", "-c", passwords, credentials.user, credentials.password])
      lines += ["allow_anonymous false", "password_file \(passwords)"]
    } else {
      lines += ["allow_anonymous true"]
    }
    _ = try directory.write("mosquitto.conf", lines.joined(separator: "\n") + "\n")
  }

  /// Starts the broker and waits until its port accepts connections (on a thread of its own: the wait blocks).
  public func start() async throws {
    try await onOwnThread { try self.startAndWait() }
  }

  private func startAndWait() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments = ["-c", directory.file("mosquitto.conf")]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    lock.withLock { self.process = process }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if Self.accepts(port: port) { return }
      guard process.isRunning else { break }
      usleep(20_000)
    }
    stop()
    throw Failure(description: "mosquitto did not start on port \(port); see \(directory.file("mosquitto.log"))")
  }

  /// Ends the broker and waits for it. SIGKILL: a child started from a Dispatch worker thread inherits its blocked
  /// signals, SIGTERM included, and the broker keeps nothing that a clean stop would save (no persistence).
  public func stop() {
    guard let process = lock.withLock({ () -> Process? in defer { self.process = nil }; return self.process }) else {
      return
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// The broker's log (connections, PINGREQ, PUBLISH with their QoS and retain flags: `log_type all`).
  public var log: String { (try? String(contentsOfFile: directory.file("mosquitto.log"), encoding: .utf8)) ?? "" }

  /// Waits until the broker's log holds `text` (true), or `seconds` pass (false): the broker logs a packet after
  /// the client has sent it, so a line about the client's last packet may come after the client has returned.
  public func waitForLog(_ text: String, seconds: Double = 60) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if log.contains(text) { return true }
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return log.contains(text)
  }

  /// mosquitto_sub arguments reaching this broker (TLS and login as configured).
  public func clientArguments() -> [String] {
    var arguments = ["-h", caFile == nil ? "127.0.0.1" : "localhost", "-p", "\(port)"]
    if let caFile { arguments += ["--cafile", caFile] }
    if let credentials { arguments += ["-u", credentials.user, "-P", credentials.password] }
    return arguments
  }

  // MARK: - Helpers

  /// A port nobody listens on now: bound to 0 by the kernel, then released.
  public static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw Failure(description: "bind() failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  static func accepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
  }

  static func run(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure(description: "\(executable) \(arguments.first ?? "") failed (\(process.terminationStatus))")
    }
  }
}

/// A real subscriber: mosquitto_sub on `topics` at QoS 1, each message recorded as retain flag, topic and payload.
public final class MosquittoSubscriber: @unchecked Sendable {
  public struct Message: Sendable, Equatable {
    public var retained: Bool
    public var topic: String
    public var payload: String
  }

  private let process = Process()
  private let lock = NSLock()
  private var buffer = Data()
  private var received: [Message] = []

  /// Starts mosquitto_sub and waits until the broker has its subscription (its log says so).
  public static func start(broker: MosquittoBroker, topics: [String]) async throws -> MosquittoSubscriber {
    try await onOwnThread { try MosquittoSubscriber(broker: broker, topics: topics) }
  }

  private init(broker: MosquittoBroker, topics: [String]) throws {
    process.executableURL = URL(fileURLWithPath: MosquittoBroker.subscriberExecutable)
    let clientID = "test-subscriber-\(UInt32.random(in: 0...UInt32.max))"
    var arguments = broker.clientArguments() + ["-q", "1", "-i", clientID, "-F", "%r\t%t\t%p"]
    for topic in topics { arguments += ["-t", topic] }
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self, !data.isEmpty else { return }
      self.append(data)
    }
    try process.run()
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if broker.log.contains("Received SUBSCRIBE from \(clientID)") { return }
      guard process.isRunning else { break }
      usleep(20_000)
    }
    throw MosquittoBroker.Failure(description: "mosquitto_sub did not subscribe; see \(broker.directory.file("mosquitto.log"))")
  }

  public var messages: [Message] { lock.withLock { received } }

  /// Waits until `condition` holds for the messages so far (true), or `seconds` pass (false). Generous limits cost
  /// nothing when all is well: the wait ends as soon as the condition holds.
  public func wait(seconds: Double = 60, until condition: ([Message]) -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition(messages) { return true }
      try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition(messages)
  }

  /// SIGKILL, for the reason `MosquittoBroker.stop()` gives.
  public func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  private func append(_ data: Data) {
    lock.withLock {
      buffer.append(data)
      while let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { continue }
        received.append(Message(retained: fields[0] == "1", topic: String(fields[1]), payload: String(fields[2])))
      }
    }
  }
}
