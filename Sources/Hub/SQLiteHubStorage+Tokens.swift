import SQLite
import SyncWire

/// Tokens in the SQLite hub: looked up on a reader connection (every request does it), written on the writer.
extension SQLiteHubStorage {
  public func credential(forTokenHash hash: String) async throws -> Credential? {
    try await read { connection in
      var credential: Credential?
      try connection.query(
        "SELECT id, kind, COALESCE(device_id, '') FROM tokens WHERE token_hash = ?", [.text(hash)]
      ) { row in
        guard let kind = TokenKind(rawValue: row.text(1) ?? "") else { return }
        let device = row.text(2) ?? ""
        credential = Credential(tokenId: row.text(0) ?? "", kind: kind, deviceId: device.isEmpty ? nil : device)
      }
      return credential
    }
  }

  public func addToken(_ token: StoredToken) async throws {
    try await write { connection in
      try connection.transaction {
        try connection.query(
          "INSERT INTO tokens (token_hash, id, kind, device_id, created_at) VALUES (?, ?, ?, ?, ?)",
          [
            .text(token.hash), .text(token.id), .text(token.kind.rawValue), token.deviceId.map { .text($0) } ?? .null,
            .real(token.createdAt),
          ])
        if token.kind == .device, let device = token.deviceId {
          try connection.query(
            "INSERT OR IGNORE INTO devices (device_id, first_seen_at) VALUES (?, ?)",
            [.text(device), .real(token.createdAt)])
        }
      }
    }
  }

  public func tokens() async throws -> [TokenInfo] {
    try await read { connection in
      var tokens: [TokenInfo] = []
      try connection.query(
        """
        SELECT id, kind, COALESCE(device_id, ''), created_at, COALESCE(last_used_at, -1) FROM tokens
        ORDER BY created_at, id
        """, []
      ) { row in
        guard let kind = TokenKind(rawValue: row.text(1) ?? "") else { return }
        let device = row.text(2) ?? ""
        let used = row.double(4)
        tokens.append(TokenInfo(
          id: row.text(0) ?? "", kind: kind, deviceId: device.isEmpty ? nil : device, createdAt: row.double(3),
          lastUsedAt: used < 0 ? nil : used))
      }
      return tokens
    }
  }

  public func revokeToken(id: String) async throws -> Bool {
    try await write { connection in
      var found: Int64 = 0
      try connection.query("SELECT COUNT(*) FROM tokens WHERE id = ?", [.text(id)]) { found = $0.int64(0) }
      try connection.query("DELETE FROM tokens WHERE id = ?", [.text(id)])
      return found > 0
    }
  }

  public func touchToken(id: String, at: Double) async throws {
    try await write { connection in
      try connection.query(
        "UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        [.real(at), .text(id), .real(at)])
    }
  }
}
