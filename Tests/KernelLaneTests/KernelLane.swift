#if STRESSMON_KERNEL_LANE
import Foundation
import Synchronization
import Testing

/// The kernel lane (docs/kernel-lane.md): `scripts/kernel-lane` boots a small Linux kernel with gpio-sim and
/// i2c-stub under QEMU and runs this suite inside it with `STRESSMON_KERNEL_LANE=1`. Anywhere else the whole
/// suite is skipped, with one line saying why.
enum KernelLane {
  static let isActive = ProcessInfo.processInfo.environment["STRESSMON_KERNEL_LANE"] == "1"

  /// The i2c-dev node of i2c-stub, the guest's only I2C adapter.
  static let i2cStubPath = "/dev/i2c-0"
  /// The address the lane loads i2c-stub with (`chip_addr=0x57`): the MAX30102's.
  static let sensorAddress: UInt8 = 0x57

  /// Reads a sysfs or configfs attribute, without its trailing newline.
  static func read(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Writes a sysfs or configfs attribute in place (those files cannot be replaced by a rename).
  static func write(_ path: String, _ value: String) throws {
    guard let handle = FileHandle(forWritingAtPath: path) else {
      throw LaneError("cannot open \(path) for writing: \(String(cString: strerror(errno)))")
    }
    defer { try? handle.close() }
    try handle.write(contentsOf: Data(value.utf8))
  }
}

/// The parent of every lane suite: skipped outside the lane, and serial inside it (the tests share the kernel's
/// GPIO chips and the one i2c-stub adapter).
@Suite(
  "Kernel lane: GPIO and I2C through a real Linux kernel (gpio-sim, i2c-stub)",
  .enabled(if: KernelLane.isActive, "runs only inside scripts/kernel-lane's VM (STRESSMON_KERNEL_LANE=1)"),
  .serialized)
struct KernelLaneTests {}

struct LaneError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Polls gpio-sim's sysfs `value` files of some lines and records every change with CLOCK_MONOTONIC time, to see
/// what the kernel shows on those lines, independently of the code driving them.
final class LineSampler: @unchecked Sendable {
  struct Change: Sendable, Equatable {
    var nanoseconds: Int64
    /// Bit i: the physical level of the i-th sampled line.
    var mask: UInt8
  }

  private let descriptors: [Int32]
  private let running = Atomic<Bool>(false)
  private let changes = Mutex<[Change]>([])
  private var thread: Thread?

  /// Opens the `value` files of `offsets` on `chip` (in that order: bit i of a mask is `offsets[i]`).
  init(chip: KernelGPIOSim, offsets: [Int]) throws {
    descriptors = try offsets.map { offset in
      let path = chip.attributePath(offset, "value")
      let fd = open(path, O_RDONLY)
      guard fd >= 0 else { throw LaneError("cannot open \(path): \(String(cString: strerror(errno)))") }
      return fd
    }
  }

  deinit { for fd in descriptors { close(fd) } }

  /// The levels now, as a mask.
  func sample() -> UInt8 {
    var mask: UInt8 = 0
    var byte: UInt8 = 0
    for (index, fd) in descriptors.enumerated() where pread(fd, &byte, 1, 0) == 1 && byte == UInt8(ascii: "1") {
      mask |= 1 << UInt8(index)
    }
    return mask
  }

  /// Starts polling about every `intervalMicroseconds`.
  func start(intervalMicroseconds: UInt32 = 500) {
    running.store(true, ordering: .sequentiallyConsistent)
    let thread = Thread { [self] in
      var last: UInt8?
      while running.load(ordering: .relaxed) {
        let mask = sample()
        if mask != last {
          let now = Self.monotonicNanoseconds()
          changes.withLock { $0.append(Change(nanoseconds: now, mask: mask)) }
          last = mask
        }
        usleep(intervalMicroseconds)
      }
    }
    self.thread = thread
    thread.start()
  }

  /// Stops polling and returns the changes seen (the first entry is the level at the start).
  func stop() -> [Change] {
    running.store(false, ordering: .sequentiallyConsistent)
    while thread?.isFinished == false { usleep(1_000) }
    return changes.withLock { $0 }
  }

  static func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}
#endif
