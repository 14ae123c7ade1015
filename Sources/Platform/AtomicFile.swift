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
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: 0o644)
    } catch {
      throw FileError(path: path, operation: "create", errno: error.rawValue)
    }
    var step = "write"
    do {
      try file.writeAll(bytes)
      step = "fsync"
      try file.sync()
      try? file.close()
    } catch {
      try? file.close()
      _ = unlink(temporary)
      throw FileError(path: path, operation: step, errno: error.rawValue)
    }
    guard rename(temporary, path) == 0 else {
      let code = errno
      _ = unlink(temporary)
      throw FileError(path: path, operation: "rename", errno: code)
    }
  }

  /// The whole file, or nil if it does not exist.
  public static func read(_ path: String) throws(FileError) -> [UInt8]? {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly)
    } catch {
      if error == .noSuchFileOrDirectory { return nil }
      throw FileError(path: path, operation: "open", errno: error.rawValue)
    }
    defer { try? file.close() }
    do {
      return try file.readAll()
    } catch {
      throw FileError(path: path, operation: "read", errno: error.rawValue)
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
