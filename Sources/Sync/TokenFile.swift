import Platform

/// A device's token file, read with its permissions checked (`Platform.SecretFile`): the token lets anyone who has
/// it write as the device, so a file other users can read is refused, and one its group can read is allowed with a
/// warning.
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
    let contents: SecretFile.Contents
    do {
      contents = try SecretFile.read(
        path, what: "token file", limit: maxBytes,
        missingAdvice: "create a token with 'stressmon-hub token create --device ID --out \(path)'")
    } catch {
      throw Problem(description: error.description, sysexitsCode: error.sysexitsCode)
    }
    let token = String(decoding: contents.bytes, as: UTF8.self).filter { !$0.isWhitespace }
    guard !token.isEmpty else {
      throw Problem(description: "the token file \(path) is empty; put the device's token in it", sysexitsCode: 65)
    }
    return Contents(token: token, warning: contents.warning)
  }
}
