#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system call's error number, typed as swift-system's `Errno` is: thrown by `FileDescriptor`, described by
/// the C library's own text.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: CInt

  public init(rawValue: CInt) { self.rawValue = rawValue }

  /// The calling thread's `errno`, read right after the call that failed.
  public static var current: Errno { Errno(rawValue: errno) }

  public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
  public static let interrupted = Errno(rawValue: EINTR)
  public static let ioError = Errno(rawValue: EIO)

  /// `strerror`'s text, e.g. "No such file or directory".
  public var description: String { String(cString: strerror(rawValue)) }
}

/// Retries a system call while it fails with EINTR, as swift-system's `retryOnInterrupt` does.
@inlinable
public func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
  while true {
    let result = body()
    if result < 0 && errno == EINTR { continue }
    return result
  }
}
