import CLinuxShim
import FoundationEssentials
import Platform

/// One look at the clocks: what a row needs to be placed in time, even on a board without a real-time clock.
public struct ClockReading: Sendable, Equatable {
  /// CLOCK_REALTIME, seconds since the Unix epoch. Wrong (1970, or the last shutdown time) until synchronised.
  public var wall: Double
  /// CLOCK_BOOTTIME, seconds since boot: never jumps, keeps counting across suspend, restarts at each boot.
  public var monotonic: Double
  /// `/proc/sys/kernel/random/boot_id`: tells which boot `monotonic` belongs to.
  public var bootId: String
  /// Whether `wall` comes from a synchronised clock (NTP, GPS, …).
  public var synchronised: Bool

  public init(wall: Double, monotonic: Double, bootId: String, synchronised: Bool) {
    self.wall = wall
    self.monotonic = monotonic
    self.bootId = bootId
    self.synchronised = synchronised
  }
}

/// The clocks the store and the daemon stamp rows with. Injected so tests can start unsynchronised and jump.
public protocol StoreClock: Sendable {
  func reading() -> ClockReading
}

/// The board's clocks: CLOCK_REALTIME, CLOCK_BOOTTIME, the kernel's boot id, and synchronisation from
/// `adjtimex(2)` (STA_UNSYNC clear) or systemd-timesyncd's `/run/systemd/timesync/synchronized` flag file.
public struct SystemStoreClock: StoreClock {
  // MARK: - Properties

  /// Read once: the boot id cannot change while this process runs.
  public let bootId: String
  /// Report the wall clock as synchronised whatever the kernel says: for boards with a battery-backed RTC and no
  /// NTP daemon, containers whose host keeps time, and simulations. Wrong on a Pi without RTC.
  public let assumeSynchronised: Bool
  private let timesyncFlagPath: String

  // MARK: - Initialization

  /// `bootIdPath` and `timesyncFlagPath` are parameters only so that tests can point them elsewhere.
  public init(
    assumeSynchronised: Bool = false,
    bootIdPath: String = "/proc/sys/kernel/random/boot_id",
    timesyncFlagPath: String = "/run/systemd/timesync/synchronized"
  ) {
    self.bootId = Self.readBootId(at: bootIdPath)
    self.assumeSynchronised = assumeSynchronised
    self.timesyncFlagPath = timesyncFlagPath
  }

  // MARK: - Public

  public func reading() -> ClockReading {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let wall = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    let monotonicNs = stressmon_boottime_ns()
    return ClockReading(
      wall: wall, monotonic: Double(monotonicNs) / 1e9, bootId: bootId, synchronised: isSynchronised())
  }

  /// The kernel's view first (adjtimex: NTP daemons such as chrony and ntpd, and timesyncd, clear STA_UNSYNC);
  /// timesyncd's flag file as a second opinion, because timesyncd only touches the kernel status on some
  /// versions. Either one saying "synchronised" is enough.
  public func isSynchronised() -> Bool {
    if assumeSynchronised || stressmon_clock_synchronised() == 1 { return true }
    return access(timesyncFlagPath, F_OK) == 0
  }

  // MARK: - Private

  /// The boot id in lowercase UUID form. If the file cannot be read (not Linux, /proc missing) a fresh id per
  /// process, so that rows of an earlier run are never mistaken for the current boot's: their monotonic times
  /// would be on another timeline.
  static func readBootId(at path: String) -> String {
    let data = FileManager.default.contents(atPath: path) ?? Data()
    let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }.lowercased()
    return text.isEmpty ? "unknown-" + UUID().uuidString.lowercased() : text
  }
}
