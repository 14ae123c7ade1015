import FoundationEssentials
import Platform

/// One daemon per database: an exclusive `flock(2)` on `<db>-lock`, which holds the owner's pid. A second daemon on
/// the same file is refused, naming the first; two would interleave two people's windows and count both in one
/// baseline. The kernel releases the lock when the process ends, however it ends, so a stale file left by a crash
/// never blocks a restart. CLI commands (history, export, sync) do not take it: they read, or write through
/// SQLite's own locking.
public final class DatabaseLock: Sendable {
  public let path: String
  private let file: FileDescriptor

  private init(path: String, file: FileDescriptor) {
    self.path = path
    self.file = file
  }

  deinit {
    try? file.close()
  }

  /// The lock file of the database at `database`.
  public static func lockPath(database: String) -> String { database + "-lock" }

  /// Takes the lock of `database`, creating its directory and the lock file (0600) when missing. nil when the lock
  /// file cannot be created at all (a read-only medium: the store then reports that itself, and no second writer
  /// could write either). Throws `StoreError.inUse` with the owner's pid when another process holds it.
  public static func acquire(database: String) throws(StoreError) -> DatabaseLock? {
    let path = lockPath(database: database)
    let directory = StoreCore.parentDirectory(of: path)
    if access(directory, F_OK) != 0 {
      try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readWrite, options: .create, permissions: 0o600)
    } catch {
      return nil
    }
    guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
      let busy = errno == EWOULDBLOCK
      let owner = busy ? readOwner(file) : nil
      try? file.close()
      if busy { throw .inUse(path: database, pid: owner) }
      return nil
    }
    let text = Array("\(getpid())\n".utf8)
    _ = ftruncate(file.rawValue, 0)
    _ = text.withUnsafeBytes { pwrite(file.rawValue, $0.baseAddress, $0.count, 0) }
    return DatabaseLock(path: path, file: file)
  }

  /// The pid the holder wrote, if it wrote one.
  private static func readOwner(_ file: FileDescriptor) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = buffer.withUnsafeMutableBytes { pread(file.rawValue, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    return Int32(String(decoding: buffer.prefix(count).prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
  }
}
