import Crypto
import SyncWire

/// Device tokens: 32 random bytes shown once as 64 hex digits; the hub stores only their SHA-256, so a copy
/// of the database does not let anyone write as a device.
public enum HubTokens {
  /// Random bytes per token: 256 bits, beyond guessing.
  public static let tokenBytes = 32

  /// A new token (64 lowercase hex digits) from the system's CSPRNG.
  public static func generate() -> String {
    var generator = SystemRandomNumberGenerator()
    return hex((0..<tokenBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
  }

  /// The stored form of a token: SHA-256 of its text, as 64 lowercase hex digits.
  public static func hash(_ token: String) -> String {
    hex(Array(SHA256.hash(data: Array(token.utf8))))
  }

  /// Creates a token for `deviceId` in `storage` and returns it (the only time it exists in clear).
  public static func create(deviceId: String, storage: any HubStorage, now: Double) async throws -> String {
    guard SyncIdentifiers.isValidDeviceId(deviceId) else {
      throw HubStorageError("device id '\(deviceId)' must be 1-64 characters of A-Z a-z 0-9 . _ -")
    }
    let token = generate()
    try await storage.addToken(hash: hash(token), deviceId: deviceId, createdAt: now)
    return token
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0xF)])
    }
    return text
  }
}
