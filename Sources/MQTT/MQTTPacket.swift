/// The MQTT 3.1.1 control packets this client sends (OASIS standard, 29 October 2014, section 3), each encoded to
/// its bytes: a publisher needs CONNECT, PUBLISH, PUBACK (for a QoS 1 message a broker might send), PINGREQ and
/// DISCONNECT. Nothing here touches the network.
public enum MQTTPacket: Sendable, Equatable {
  case connect(MQTTConnect)
  case publish(MQTTMessage, packetID: UInt16?, duplicate: Bool)
  case publishAck(packetID: UInt16)
  case pingRequest
  case disconnect

  /// Control packet types (section 2.2.1), the high nibble of the first byte.
  enum Kind: UInt8 {
    case connect = 1, connectAck = 2, publish = 3, publishAck = 4, publishReceived = 5, publishRelease = 6
    case publishComplete = 7, subscribe = 8, subscribeAck = 9, unsubscribe = 10, unsubscribeAck = 11
    case pingRequest = 12, pingResponse = 13, disconnect = 14
  }

  /// The largest remaining length the variable-length encoding can express (section 2.2.3).
  public static let maxRemainingLength = 268_435_455

  /// The packet's bytes. Lengths were checked when the values were made (`MQTTMessage`, `MQTTConnect`).
  public func encoded() -> [UInt8] {
    var body: [UInt8] = []
    let first: UInt8
    switch self {
    case .connect(let connect):
      first = Kind.connect.rawValue << 4
      body = connect.variableHeaderAndPayload()
    case .publish(let message, let packetID, let duplicate):
      let qos: UInt8 = packetID == nil ? 0 : 1
      first = Kind.publish.rawValue << 4 | (duplicate ? 0x08 : 0) | qos << 1 | (message.retain ? 0x01 : 0)
      Self.appendString(message.topic, to: &body)
      if let packetID { Self.appendUInt16(packetID, to: &body) }
      body += message.payload
    case .publishAck(let packetID):
      first = Kind.publishAck.rawValue << 4
      Self.appendUInt16(packetID, to: &body)
    case .pingRequest:
      first = Kind.pingRequest.rawValue << 4
    case .disconnect:
      first = Kind.disconnect.rawValue << 4
    }
    var bytes = [first]
    Self.appendRemainingLength(body.count, to: &bytes)
    return bytes + body
  }

  // MARK: - Encoding helpers (section 1.5)

  /// The variable-length "remaining length" of `length`: 7 bits a byte, least significant group first, the top
  /// bit set when another byte follows; 1-4 bytes.
  public static func remainingLengthBytes(_ length: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    appendRemainingLength(length, to: &bytes)
    return bytes
  }

  static func appendRemainingLength(_ length: Int, to bytes: inout [UInt8]) {
    precondition(length >= 0 && length <= maxRemainingLength, "MQTT remaining length out of range")
    var value = length
    repeat {
      var byte = UInt8(value % 128)
      value /= 128
      if value > 0 { byte |= 0x80 }
      bytes.append(byte)
    } while value > 0
  }

  static func appendUInt16(_ value: UInt16, to bytes: inout [UInt8]) {
    bytes.append(UInt8(value >> 8))
    bytes.append(UInt8(value & 0xFF))
  }

  /// A UTF-8 string or binary field: two length bytes (big-endian), then the bytes.
  static func appendString(_ text: String, to bytes: inout [UInt8]) {
    appendBinary(Array(text.utf8), to: &bytes)
  }

  static func appendBinary(_ data: [UInt8], to bytes: inout [UInt8]) {
    precondition(data.count <= Int(UInt16.max), "MQTT string longer than 65535 bytes")
    appendUInt16(UInt16(data.count), to: &bytes)
    bytes += data
  }
}

/// One application message: topic, payload and the retain flag. QoS is the session's choice (this client
/// publishes at QoS 1).
public struct MQTTMessage: Sendable, Equatable {
  public var topic: String
  public var payload: [UInt8]
  public var retain: Bool

  /// Checks the topic (section 4.7): 1-65535 bytes of UTF-8, no wildcard (`+`, `#`) and no U+0000 in a topic
  /// name one publishes to. Payloads above 256 KiB are refused: this client sends small JSON documents.
  public init(topic: String, payload: [UInt8], retain: Bool) throws(MQTTError) {
    try Self.checkTopic(topic)
    guard payload.count <= Self.maxPayloadBytes else {
      throw .configuration("an MQTT payload of \(payload.count) bytes is over this client's \(Self.maxPayloadBytes)")
    }
    self.topic = topic
    self.payload = payload
    self.retain = retain
  }

  public static let maxPayloadBytes = 256 * 1024

  public static func checkTopic(_ topic: String) throws(MQTTError) {
    let count = topic.utf8.count
    guard count > 0, count <= Int(UInt16.max) else {
      throw .configuration("the MQTT topic '\(topic)' must be 1-65535 bytes long")
    }
    guard !topic.unicodeScalars.contains(where: { $0 == "+" || $0 == "#" || $0 == "\u{0}" }) else {
      throw .configuration("the MQTT topic '\(topic)' must not contain + or # (wildcards are for subscribing)")
    }
  }
}

/// CONNECT's fields (section 3.1): protocol level 4, the client id, keep-alive, a clean session, an optional last
/// will (published by the broker when the connection is lost without DISCONNECT), and optional credentials.
public struct MQTTConnect: Sendable, Equatable {
  public var clientID: String
  public var keepAliveSeconds: UInt16
  public var cleanSession: Bool
  /// The will is sent at QoS 1.
  public var will: MQTTMessage?
  public var username: String?
  public var password: [UInt8]?

  public init(
    clientID: String, keepAliveSeconds: UInt16, cleanSession: Bool = true, will: MQTTMessage? = nil,
    username: String? = nil, password: [UInt8]? = nil
  ) {
    self.clientID = clientID
    self.keepAliveSeconds = keepAliveSeconds
    self.cleanSession = cleanSession
    self.will = will
    self.username = username
    self.password = password
  }

  /// Protocol level 4 is MQTT 3.1.1 (section 3.1.2.2).
  static let protocolLevel: UInt8 = 4

  func variableHeaderAndPayload() -> [UInt8] {
    var bytes: [UInt8] = []
    MQTTPacket.appendString("MQTT", to: &bytes)
    bytes.append(Self.protocolLevel)
    // Connect flags (section 3.1.2.3): username 7, password 6, will retain 5, will QoS 4-3, will 2, clean session 1.
    var flags: UInt8 = 0
    if username != nil { flags |= 0x80 }
    if username != nil && password != nil { flags |= 0x40 }
    if let will {
      flags |= 0x04 | 0x01 << 3
      if will.retain { flags |= 0x20 }
    }
    if cleanSession { flags |= 0x02 }
    bytes.append(flags)
    MQTTPacket.appendUInt16(keepAliveSeconds, to: &bytes)
    MQTTPacket.appendString(clientID, to: &bytes)
    if let will {
      MQTTPacket.appendString(will.topic, to: &bytes)
      MQTTPacket.appendBinary(will.payload, to: &bytes)
    }
    if let username {
      MQTTPacket.appendString(username, to: &bytes)
      // A password without a user name is not allowed in 3.1.1 (section 3.1.2.9).
      if let password { MQTTPacket.appendBinary(password, to: &bytes) }
    }
    return bytes
  }
}
