import Platform

/// Where and how to reach the broker: `mqtt://HOST[:1883]` or `mqtts://HOST[:8883]` (TLS, verified against the
/// system's trust store or only `caFile`), optional credentials, the client id and the timing.
public struct MQTTConfiguration: Sendable {
  public var host: String
  public var port: Int
  public var useTLS: Bool
  /// PEM file of the CA that signed the broker's certificate; nil: the system's trust store.
  public var caFile: String?
  public var username: String?
  public var password: [UInt8]?
  /// Unique per connection on a broker: a second client with the same id makes the broker drop the first.
  public var clientID: String
  /// The longest silence before a PINGREQ (section 3.1.2.10); the broker drops the client after 1.5 times this.
  public var keepAliveSeconds: UInt16
  /// TCP connect, and then the TLS handshake and CONNACK, each at most this long.
  public var connectTimeoutSeconds: Double
  /// A PUBACK or PINGRESP later than this means the connection is dead: it is closed and made again.
  public var answerTimeoutSeconds: Double
  /// Reconnect delays: the first, doubling after each failure up to the longest, each scaled by a random factor
  /// in [0.5, 1) so that many devices do not come back at the same instant after a broker restart.
  public var retryInitialSeconds: Double
  public var retryMaximumSeconds: Double
  /// Published by the broker when this client disappears without DISCONNECT (retained, QoS 1).
  public var will: MQTTMessage?

  public init(
    host: String, port: Int, useTLS: Bool, caFile: String? = nil, username: String? = nil, password: [UInt8]? = nil,
    clientID: String, keepAliveSeconds: UInt16 = 60, connectTimeoutSeconds: Double = 10,
    answerTimeoutSeconds: Double = 10, retryInitialSeconds: Double = 1, retryMaximumSeconds: Double = 60,
    will: MQTTMessage? = nil
  ) {
    self.host = host
    self.port = port
    self.useTLS = useTLS
    self.caFile = caFile
    self.username = username
    self.password = password
    self.clientID = clientID
    self.keepAliveSeconds = keepAliveSeconds
    self.connectTimeoutSeconds = connectTimeoutSeconds
    self.answerTimeoutSeconds = answerTimeoutSeconds
    self.retryInitialSeconds = retryInitialSeconds
    self.retryMaximumSeconds = retryMaximumSeconds
    self.will = will
  }

  /// "mqtts://broker.local:8883", for logs and messages.
  public var brokerDescription: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "\(useTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
  }

  // MARK: - Broker URL

  /// The parts of a broker URL.
  public struct BrokerAddress: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var useTLS: Bool

    public init(host: String, port: Int, useTLS: Bool) {
      self.host = host
      self.port = port
      self.useTLS = useTLS
    }
  }

  /// Parses `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (an IPv6 address in brackets; a trailing `/` allowed).
  /// Plain `mqtt://` is refused unless `allowPlain`: measurements and the password would cross the network
  /// unencrypted.
  public static func parseBroker(_ url: String, allowPlain: Bool) throws(MQTTError) -> BrokerAddress {
    let lower = url.lowercased()
    let useTLS: Bool
    let rest: Substring
    if lower.hasPrefix("mqtts://") {
      useTLS = true
      rest = url.dropFirst(8)
    } else if lower.hasPrefix("mqtt://") {
      useTLS = false
      rest = url.dropFirst(7)
    } else {
      throw .configuration("'\(url)' must be mqtts://HOST[:8883] (TLS) or mqtt://HOST[:1883]")
    }
    var authority = rest.hasSuffix("/") ? rest.dropLast() : rest
    guard !authority.contains("/"), !authority.contains("?") else {
      throw .configuration("'\(url)' must be only scheme, host and port (topics are set by topic_prefix)")
    }
    guard !authority.contains("@") else {
      throw .configuration("'\(url)' must not hold a user name or password: put them in credentials_file")
    }
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else {
        throw .configuration("'\(url)': an IPv6 address needs its closing ]")
      }
      host = authority[authority.index(after: authority.startIndex)..<close]
      authority = authority[authority.index(after: close)...]
      if authority.hasPrefix(":") { portText = authority.dropFirst() } else if !authority.isEmpty {
        throw .configuration("'\(url)': expected :PORT after the IPv6 address")
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      portText = authority[authority.index(after: colon)...]
    } else {
      host = authority
    }
    guard !host.isEmpty else { throw .configuration("'\(url)' has no host name") }
    var port = useTLS ? 8883 : 1883
    if let portText {
      guard let value = Int(portText), (1...65_535).contains(value) else {
        throw .configuration("'\(url)': the port must be 1-65535")
      }
      port = value
    }
    if !useTLS && !allowPlain {
      throw .configuration(
        "'\(url)' is plain MQTT: measurements and the password would cross the network unencrypted; use "
          + "mqtts:// (the broker's TLS listener), or set insecure = true on a trusted network")
    }
    return BrokerAddress(host: String(host), port: port, useTLS: useTLS)
  }

  // MARK: - Credentials

  /// A credentials file: the user name on the first line, the password on the second (the rest of that line,
  /// spaces included). Its permissions are checked as for a token (`SecretFile`): one others can read is refused.
  public struct Credentials: Sendable, Equatable {
    public var username: String
    public var password: [UInt8]?
    /// Set when the file's group can read it.
    public var warning: String?
  }

  public static func readCredentials(_ path: String) throws(SecretFile.Problem) -> Credentials {
    let contents = try SecretFile.read(
      path, what: "MQTT credentials file", limit: 4096,
      missingAdvice: "write the broker's user name on its first line and the password on the second, then "
        + "chmod 600 \(path) (or leave [mqtt] credentials_file empty for a broker without login)")
    var lines = contents.bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
      line.last == UInt8(ascii: "\r") ? Array(line.dropLast()) : Array(line)
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let first = lines.first, !first.isEmpty else {
      throw SecretFile.Problem(
        description: "the MQTT credentials file \(path) has no user name on its first line", sysexitsCode: 65)
    }
    guard lines.count <= 2 else {
      throw SecretFile.Problem(
        description: "the MQTT credentials file \(path) has \(lines.count) lines; it holds the user name and the "
          + "password, one a line", sysexitsCode: 65)
    }
    return Credentials(
      username: String(decoding: first, as: UTF8.self), password: lines.count == 2 ? lines[1] : nil,
      warning: contents.warning)
  }
}
