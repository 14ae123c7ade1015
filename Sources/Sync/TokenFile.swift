import Platform

/// A device's token file, read with its permissions checked. The token lets anyone who has it write as the
/// device, so a file other users can read is refused (as ssh refuses a private key others can read), and one
/// its group can read is allowed with a warning (root-owned, group `stressmon`, 0640 is a deliberate set-up).
public enum TokenFile {
  /// Why a token file cannot be used. `sysexitsCode`: 66 missing, 65 empty, 64 exposed (fix the mode).
  public struct Problem: Error, Sendable, CustomStringConvertible {
    public var description: String
    public var sysexitsCode: Int32
  }

  /// The token, and a warning to show when the file's group can read it.
  public struct Contents: Sendable {
    public var token: String
    public var warning: String?
  }

  /// The longest token file read: tokens are 64 characters.
  static let maxBytes = 4096

  public static func read(_ path: String) throws(Problem) -> Contents {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path, .readOnly)
    } catch {
      throw Problem(
        description: "cannot read the token file \(path): \(error); create a token with "
          + "'stressmon-hub token create --device ID --out \(path)'",
        sysexitsCode: 66)
    }
    defer { try? file.close() }
    var info = stat()
    guard fstat(file.rawValue, &info) == 0 else {
      throw Problem(description: "cannot stat the token file \(path)", sysexitsCode: 66)
    }
    let mode = info.st_mode & 0o777
    if mode & 0o022 != 0 {
      throw Problem(
        description: "the token file \(path) can be changed by other users (mode \(octal(mode))); chmod 600 \(path)",
        sysexitsCode: 64)
    }
    if mode & 0o004 != 0 {
      throw Problem(
        description: "the token file \(path) can be read by every user of this machine (mode \(octal(mode))); "
          + "chmod 600 \(path)",
        sysexitsCode: 64)
    }
    let warning = mode & 0o040 != 0
      ? "the token file \(path) can be read by its group (mode \(octal(mode))); chmod 600 \(path) unless only the "
        + "stressmon service is in that group"
      : nil
    let bytes: [UInt8]
    do {
      bytes = try file.readAll(limit: maxBytes, chunk: 512)
    } catch {
      throw Problem(description: "cannot read the token file \(path): \(error)", sysexitsCode: 66)
    }
    let token = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    guard !token.isEmpty else {
      throw Problem(description: "the token file \(path) is empty; put the device's token in it", sysexitsCode: 65)
    }
    return Contents(token: token, warning: warning)
  }

  private static func octal(_ mode: mode_t) -> String {
    "0" + String(mode, radix: 8)
  }
}
