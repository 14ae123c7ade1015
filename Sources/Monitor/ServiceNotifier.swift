import Platform
import Synchronization

/// systemd's service notification (sd_notify(3)) without libsystemd: one datagram per message to the AF_UNIX socket
/// named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). The daemon says `READY=1` once the
/// sensor delivers samples (Type=notify), `WATCHDOG=1` as the sampling loop makes progress, `STOPPING=1` on a
/// stop. Without `$NOTIFY_SOCKET` (not started by systemd) every call does nothing.
///
/// The watchdog: `$WATCHDOG_USEC` (for this process, or for whichever `$WATCHDOG_PID` names) is the interval systemd
/// allows between heartbeats. `progress(atNanoseconds:)` is called by the loop that must keep moving (each block of
/// samples); it sends a heartbeat when a quarter of the interval has passed since the last one, so heartbeats come at
/// most `interval/4 + one block` apart and stop when the loop stops (a hung I2C or SPI transfer): systemd then kills
/// and restarts the service. No timer sends them.
///
/// Locking: the socket descriptor is immutable; the time of the last heartbeat is in a `Mutex`.
public final class ServiceNotifier: Sendable {
  // MARK: - Properties

  /// The socket address, nil when not under systemd.
  public let socketPath: String?
  /// The watchdog interval in nanoseconds, nil when no watchdog is set for this process.
  public let watchdogNanoseconds: Int64?
  private let descriptor: Int32
  private let lastHeartbeat = Mutex<Int64?>(nil)

  /// A notifier for this process's environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`).
  public static func fromEnvironment() -> ServiceNotifier {
    ServiceNotifier(
      socketPath: Self.variable("NOTIFY_SOCKET"),
      watchdogMicroseconds: Self.variable("WATCHDOG_USEC").flatMap { Int64($0) },
      watchdogPID: Self.variable("WATCHDOG_PID").flatMap { Int32($0) })
  }

  /// - Parameters:
  ///   - watchdogPID: the process the watchdog is meant for; another process's watchdog is not ours to feed.
  public init(socketPath: String?, watchdogMicroseconds: Int64? = nil, watchdogPID: Int32? = nil) {
    let path = socketPath.flatMap { $0.isEmpty ? nil : $0 }
    self.socketPath = path
    if let microseconds = watchdogMicroseconds, microseconds > 0, watchdogPID == nil || watchdogPID == getpid() {
      watchdogNanoseconds = microseconds * 1_000
    } else {
      watchdogNanoseconds = nil
    }
    descriptor = path == nil ? -1 : socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  // MARK: - Messages

  public var isActive: Bool { descriptor >= 0 }

  /// `READY=1`: start-up is complete (systemd's `Type=notify` start job ends here).
  public func ready(status: String) {
    send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
  }

  /// `STOPPING=1`: the service is shutting down on request.
  public func stopping(status: String) {
    send("STOPPING=1\nSTATUS=\(status)")
  }

  /// `STATUS=…`: one line for `systemctl status`.
  public func status(_ text: String) {
    send("STATUS=\(text)")
  }

  /// The loop made progress at `now` (monotonic nanoseconds): sends `WATCHDOG=1` if a quarter of the watchdog
  /// interval has passed since the last heartbeat. Returns whether it sent one.
  @discardableResult
  public func progress(atNanoseconds now: Int64) -> Bool {
    guard let interval = watchdogNanoseconds, isActive else { return false }
    let due = lastHeartbeat.withLock { last -> Bool in
      guard last.map({ now - $0 >= interval / 4 }) ?? true else { return false }
      last = now
      return true
    }
    if due { send("WATCHDOG=1") }
    return due
  }

  /// The longest a loop that feeds the watchdog may wait between two calls of `progress` (a quarter of the
  /// interval), nil without a watchdog: waits longer than this are cut into pieces.
  public var heartbeatSliceNanoseconds: Int64? { watchdogNanoseconds.map { max(1_000_000, $0 / 4) } }

  /// Sends one notification datagram. Returns false when not under systemd or the send failed (never blocks).
  @discardableResult
  public func send(_ message: String) -> Bool {
    guard descriptor >= 0, let socketPath else { return false }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var pathBytes = Array(socketPath.utf8)
    // "@name": the abstract namespace, where the name starts with a NUL byte and is not NUL-terminated.
    let abstract = pathBytes.first == UInt8(ascii: "@")
    if abstract { pathBytes[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard pathBytes.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: pathBytes)
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (abstract ? 0 : 1))
    let bytes = Array(message.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bytes.withUnsafeBytes { buffer in
          sendto(
            descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress, length)
        }
      }
    }
    return sent == bytes.count
  }

  private static func variable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
