import Crypto
import SyncWire

/// What a token may do. Devices write only their own rows; readers read rows (of one device or all) and the
/// fleet pages; kiosk keys open one device's kiosk page, so a wall display needs no login.
public enum TokenKind: String, Sendable, Codable, CaseIterable {
  case device
  case reader
  case kiosk
}

/// What a presented token grants.
public struct Credential: Sendable, Equatable {
  /// The token's public id (`token list`, `token revoke`, logs): never the token itself.
  public var tokenId: String
  public var kind: TokenKind
  /// The device written (device), shown (kiosk) or read (reader); nil for a reader of every device.
  public var deviceId: String?

  public init(tokenId: String, kind: TokenKind, deviceId: String?) {
    self.tokenId = tokenId
    self.kind = kind
    self.deviceId = deviceId
  }

  /// Whether this credential may read `device`'s rows.
  public func reads(_ device: String) -> Bool {
    kind == .reader && (deviceId == nil || deviceId == device)
  }
}

/// A token as stored: its hash, never its text.
public struct StoredToken: Sendable, Equatable {
  public var id: String
  public var hash: String
  public var kind: TokenKind
  public var deviceId: String?
  public var createdAt: Double

  public init(id: String, hash: String, kind: TokenKind, deviceId: String?, createdAt: Double) {
    self.id = id
    self.hash = hash
    self.kind = kind
    self.deviceId = deviceId
    self.createdAt = createdAt
  }
}

/// A token for `token list`: what it grants and when it was made and last used.
public struct TokenInfo: Sendable, Equatable, Codable {
  public var id: String
  public var kind: TokenKind
  public var deviceId: String?
  public var createdAt: Double
  public var lastUsedAt: Double?

  public init(id: String, kind: TokenKind, deviceId: String?, createdAt: Double, lastUsedAt: Double?) {
    self.id = id
    self.kind = kind
    self.deviceId = deviceId
    self.createdAt = createdAt
    self.lastUsedAt = lastUsedAt
  }

  enum CodingKeys: String, CodingKey {
    case id, kind
    case deviceId = "device_id"
    case createdAt = "created_at"
    case lastUsedAt = "last_used_at"
  }
}

/// Tokens: 32 random bytes shown once as 64 hex digits; the hub stores only their SHA-256, so a copy of the
/// database does not let anyone write as a device or read anyone's data.
public enum HubTokens {
  /// Random bytes per token: 256 bits, beyond guessing.
  public static let tokenBytes = 32
  /// Hex digits of the public id: the first 12 of the hash (48 bits: unique in any real hub, and revealing
  /// them says nothing usable about a 256-bit token).
  public static let idLength = 12

  /// A new token (64 lowercase hex digits) from the system's CSPRNG.
  public static func generate() -> String {
    var generator = SystemRandomNumberGenerator()
    return hex((0..<tokenBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
  }

  /// The stored form of a token: SHA-256 of its text, as 64 lowercase hex digits.
  public static func hash(_ token: String) -> String {
    hex(Array(SHA256.hash(data: Array(token.utf8))))
  }

  /// The public id of the token with this hash.
  public static func id(forHash hash: String) -> String {
    String(hash.prefix(idLength))
  }

  /// Creates a token in `storage` and returns it with its id (the only time the token exists in clear).
  /// A device or kiosk token needs `deviceId`; a reader without one reads every device.
  public static func create(
    kind: TokenKind, deviceId: String?, storage: any HubStorage, now: Double
  ) async throws -> (id: String, token: String) {
    if let deviceId, !SyncIdentifiers.isValidDeviceId(deviceId) {
      throw HubStorageError("device id '\(deviceId)' must be \(SyncIdentifiers.deviceIdRule)")
    }
    guard deviceId != nil || kind == .reader else {
      throw HubStorageError("a \(kind.rawValue) token belongs to one device: pass --device ID")
    }
    let token = generate()
    let hash = hash(token)
    let id = id(forHash: hash)
    try await storage.addToken(StoredToken(id: id, hash: hash, kind: kind, deviceId: deviceId, createdAt: now))
    return (id, token)
  }

  /// A device (write) token for `deviceId`.
  public static func create(deviceId: String, storage: any HubStorage, now: Double) async throws -> String {
    try await create(kind: .device, deviceId: deviceId, storage: storage, now: now).token
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
