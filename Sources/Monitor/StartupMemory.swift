import Logging
import Platform

/// Gives back the pages only start-up needed. A Swift binary's code and metadata are mapped from the file; the
/// kernel maps them 64 KiB at a time around each page touched ("fault-around"), so argument parsing, config and
/// board loading, SQLite's migrations and the first panel frame leave ~10 MB of clean file-backed pages counted
/// in the daemon's RSS for as long as it runs. Once the first result has been shown, `madvise(MADV_PAGEOUT)` on
/// the process's file-backed mappings lets the kernel reclaim them; what the steady loop uses comes back at the
/// next touch (from the page cache, or the disk). Anonymous memory (heap, stacks) is not touched.
///
/// Measured on the simulated board (docs/daemon.md): RSS 22-25 MB before, ~13 MB after a minute of steady running.
/// Linux ≥ 5.4; elsewhere (or if refused) it changes nothing and says so at debug level.
enum StartupMemory {
  /// `MADV_PAGEOUT` (linux/mman.h: 21): reclaim these pages now.
  static let pageOut: Int32 = 21

  /// Pages out every file-backed mapping of this process. Returns the bytes asked for (0 if nothing was done).
  @discardableResult
  static func release(logger: Logger) -> Int {
    guard let maps = fopen("/proc/self/maps", "r") else { return 0 }
    defer { fclose(maps) }
    var line = [CChar](repeating: 0, count: 4_096)
    var requested = 0
    var failures = 0
    while fgets(&line, Int32(line.count), maps) != nil {
      let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let fields = text.split(separator: " ", omittingEmptySubsequences: true)
      // address perms offset device inode path: only mappings of a file (a path), never [heap], [stack], anonymous.
      guard fields.count >= 6, fields[5].hasPrefix("/") else { continue }
      let bounds = fields[0].split(separator: "-")
      guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
        end > start, let address = UnsafeMutableRawPointer(bitPattern: start)
      else { continue }
      if madvise(address, Int(end - start), pageOut) == 0 {
        requested += Int(end - start)
      } else {
        failures += 1
      }
    }
    logger.debug("released start-up pages", metadata: ["mapped_bytes": "\(requested)", "refused": "\(failures)"])
    return requested
  }
}
