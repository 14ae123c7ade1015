#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whole-file reads and crash-safe writes (temporary file, fsync, rename), for images and the panel state: a
/// power cut leaves either the old file or the new one, never half of one.
public enum AtomicFile {
  /// Writes `bytes` to `path` atomically.
  public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
    let temporary = path + ".tmp-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FileError(path: path, operation: "create", errno: errno) }
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else {
        let code = errno
        _ = close(fd)
        _ = unlink(temporary)
        throw FileError(path: path, operation: "write", errno: code)
      }
      offset += written
    }
    let synced = fsync(fd)
    let syncErrno = errno
    _ = close(fd)
    guard synced == 0 else {
      _ = unlink(temporary)
      throw FileError(path: path, operation: "fsync", errno: syncErrno)
    }
    guard rename(temporary, path) == 0 else {
      let code = errno
      _ = unlink(temporary)
      throw FileError(path: path, operation: "rename", errno: code)
    }
  }

  /// The whole file, or nil if it does not exist.
  public static func read(_ path: String) throws(FileError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      throw FileError(path: path, operation: "open", errno: errno)
    }
    defer { _ = close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw FileError(path: path, operation: "read", errno: errno) }
      if count == 0 { return result }
      result += buffer[0..<count]
    }
  }
}

/// A file that could not be read or written: which file, which step, and the system's reason.
public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var operation: String
  public var errno: Int32

  public init(path: String, operation: String, errno: Int32) {
    self.path = path
    self.operation = operation
    self.errno = errno
  }

  public var description: String {
    "\(path): \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
  }
}
