#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file, device node or standard stream: a struct around the descriptor number, with open, read, write,
/// sync and close mapped one-to-one onto the system calls and failures thrown as `Errno`, like swift-system's
/// `FileDescriptor` (which would add a package for these few calls). The owner closes it; nothing is hidden.
public struct FileDescriptor: Sendable, Hashable {
  public let rawValue: CInt

  public init(rawValue: CInt) { self.rawValue = rawValue }

  public static let standardOutput = FileDescriptor(rawValue: 1)
  public static let standardError = FileDescriptor(rawValue: 2)

  /// O_RDONLY, O_WRONLY, O_RDWR.
  public enum AccessMode: Sendable {
    case readOnly, writeOnly, readWrite

    var flags: CInt {
      switch self {
      case .readOnly: O_RDONLY
      case .writeOnly: O_WRONLY
      case .readWrite: O_RDWR
      }
    }
  }

  /// O_CREAT, O_TRUNC, O_APPEND, O_EXCL. Every descriptor is opened O_CLOEXEC: none leaks into a child process.
  public struct OpenOptions: OptionSet, Sendable {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    public static let create = OpenOptions(rawValue: O_CREAT)
    public static let truncate = OpenOptions(rawValue: O_TRUNC)
    public static let append = OpenOptions(rawValue: O_APPEND)
    /// With `.create`: fail with EEXIST when the file exists (a new file, never someone else's).
    public static let exclusive = OpenOptions(rawValue: O_EXCL)
  }

  // MARK: - System calls

  /// open(2). `permissions` apply when `.create` makes the file.
  public static func open(
    _ path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: mode_t = 0o644,
    retryOnInterrupt: Bool = true
  ) throws(Errno) -> FileDescriptor {
    let flags = mode.flags | options.rawValue | O_CLOEXEC
    let call = { path.withCString { name in system_open(name, flags, permissions) } }
    let fd = retryOnInterrupt ? retryingOnInterrupt(call) : call()
    guard fd >= 0 else { throw Errno.current }
    return FileDescriptor(rawValue: fd)
  }

  /// read(2): up to `buffer.count` bytes; 0 at the end of the file.
  public func read(into buffer: UnsafeMutableRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
    let call = { system_read(rawValue, buffer.baseAddress, buffer.count) }
    let count = retryOnInterrupt ? retryingOnInterrupt(call) : call()
    guard count >= 0 else { throw Errno.current }
    return count
  }

  /// write(2): some of `buffer`, perhaps not all; see `writeAll`.
  public func write(_ buffer: UnsafeRawBufferPointer, retryOnInterrupt: Bool = true) throws(Errno) -> Int {
    let call = { system_write(rawValue, buffer.baseAddress, buffer.count) }
    let count = retryOnInterrupt ? retryingOnInterrupt(call) : call()
    guard count >= 0 else { throw Errno.current }
    return count
  }

  /// fsync(2): the file's data and metadata on the medium.
  public func sync() throws(Errno) {
    guard fsync(rawValue) == 0 else { throw Errno.current }
  }

  /// close(2). Never retried: on Linux the descriptor is released even when close fails with EINTR.
  public func close() throws(Errno) {
    guard system_close(rawValue) == 0 else { throw Errno.current }
  }

  // MARK: - Whole buffers

  /// Writes every byte, calling write(2) as often as it takes.
  public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      let written = try write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
      guard written > 0 else { throw Errno.ioError }
      offset += written
    }
  }

  /// Writes every byte of `bytes`.
  public func writeAll<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(Errno) {
    let done = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(Errno) in try writeAll(UnsafeRawBufferPointer(buffer)) }
    }
    guard let done else { return try writeAll(Array(bytes)) }
    try done.get()
  }

  /// Reads to the end of the file, or until at least `limit` bytes are read.
  public func readAll(limit: Int = .max, chunk: Int = 65_536) throws(Errno) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while result.count < limit {
      let count = buffer.withUnsafeMutableBytes { raw in
        retryingOnInterrupt { system_read(rawValue, raw.baseAddress, raw.count) }
      }
      guard count >= 0 else { throw Errno.current }
      if count == 0 { break }
      result += buffer[0..<count]
    }
    return result
  }
}

// The C calls under names that FileDescriptor's own methods do not shadow.
private func system_open(_ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt { open(path, flags, mode) }
private func system_read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func system_write(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func system_close(_ fd: CInt) -> CInt { close(fd) }
