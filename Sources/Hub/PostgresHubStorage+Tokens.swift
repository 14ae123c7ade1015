import PostgresNIO

/// Tokens in the PostgreSQL hub.
extension PostgresHubStorage {
  public func credential(forTokenHash hash: String) async throws -> Credential? {
    let rows = try await client.query(
      "SELECT id, kind, device_id FROM tokens WHERE token_hash = \(hash)", logger: logger)
    for try await (id, kind, device) in rows.decode((String, String, String?).self) {
      guard let kind = TokenKind(rawValue: kind) else { return nil }
      return Credential(tokenId: id, kind: kind, deviceId: device)
    }
    return nil
  }

  public func addToken(_ token: StoredToken) async throws {
    await runnerStarted()
    try await transaction { connection in
      try await connection.query(
        """
        INSERT INTO tokens (token_hash, id, kind, device_id, created_at)
        VALUES (\(token.hash), \(token.id), \(token.kind.rawValue), \(token.deviceId), \(token.createdAt))
        """, logger: self.logger)
      if token.kind == .device, let device = token.deviceId {
        try await connection.query(
          "INSERT INTO devices (device_id, first_seen_at) VALUES (\(device), \(token.createdAt)) ON CONFLICT DO NOTHING",
          logger: self.logger)
      }
    }
  }

  public func tokens() async throws -> [TokenInfo] {
    let rows = try await client.query(
      "SELECT id, kind, device_id, created_at, last_used_at FROM tokens ORDER BY created_at, id", logger: logger)
    var tokens: [TokenInfo] = []
    for try await (id, kind, device, created, used) in rows.decode((String, String, String?, Double, Double?).self) {
      guard let kind = TokenKind(rawValue: kind) else { continue }
      tokens.append(TokenInfo(id: id, kind: kind, deviceId: device, createdAt: created, lastUsedAt: used))
    }
    return tokens
  }

  public func revokeToken(id: String) async throws -> Bool {
    let rows = try await client.query(
      "WITH gone AS (DELETE FROM tokens WHERE id = \(id) RETURNING 1) SELECT COUNT(*) FROM gone", logger: logger)
    for try await count in rows.decode(Int64.self) { return count > 0 }
    return false
  }

  public func touchToken(id: String, at: Double) async throws {
    try await client.query(
      "UPDATE tokens SET last_used_at = \(at) WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(at))",
      logger: logger)
  }
}
