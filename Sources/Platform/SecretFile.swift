#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file holding a secret (a device token, a broker password), read with its permissions checked, as ssh checks a
/// private key: one that other users can change or read is refused, one its group can read is allowed with a
/// warning (root-owned, group `stressmon`, 0640 is a deliberate set-up for the service's user).
public enum SecretFile {
  /// Why the file cannot be used. `sysexitsCode`: 66 missing or unreadable, 64 exposed (fix the mode).
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var description: String
    public var sysexitsCode: Int32

    public init(description: String, sysexitsCode: Int32) {
      self.description = description
      self.sysexitsCode = sysexitsCode
    }
  }

  /// The bytes, and a warning to show when the file's group can read it.
  public struct Contents: Sendable {
    public var bytes: [UInt8]
    public var warning: String?
  }

  /// Reads at most `limit` bytes of `path`, which is called `what` in messages ("token file"). `missingAdvice`
  /// follows the "cannot read" message (how to make the file).
  public static func read(_ path: String, what: String, limit: Int = 4096, missingAdvice: String)
    throws(Problem) -> Contents
  {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly)
    } catch {
      throw Problem(description: "cannot read the \(what) \(path): \(error); \(missingAdvice)", sysexitsCode: 66)
    }
    defer { try? file.close() }
    var info = stat()
    guard fstat(file.rawValue, &info) == 0 else {
      throw Problem(description: "cannot stat the \(what) \(path)", sysexitsCode: 66)
    }
    let mode = info.st_mode & 0o777
    if mode & 0o022 != 0 {
      throw Problem(
        description: "the \(what) \(path) can be changed by other users (mode \(octal(mode))); chmod 600 \(path)",
        sysexitsCode: 64)
    }
    if mode & 0o004 != 0 {
      throw Problem(
        description: "the \(what) \(path) can be read by every user of this machine (mode \(octal(mode))); "
          + "chmod 600 \(path)",
        sysexitsCode: 64)
    }
    let warning = mode & 0o040 != 0
      ? "the \(what) \(path) can be read by its group (mode \(octal(mode))); chmod 600 \(path) unless only the "
        + "stressmon service is in that group"
      : nil
    do {
      return Contents(bytes: try file.readAll(limit: limit, chunk: 512), warning: warning)
    } catch {
      throw Problem(description: "cannot read the \(what) \(path): \(error)", sysexitsCode: 66)
    }
  }

  private static func octal(_ mode: mode_t) -> String {
    "0" + String(mode, radix: 8)
  }
}
