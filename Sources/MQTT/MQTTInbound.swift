/// What a broker sends a publisher that subscribes to nothing: CONNACK, PUBACK, PINGRESP; and a PUBLISH, which a
/// broker only sends to a subscriber, decoded so that a QoS 1 one can still be acknowledged.
public enum MQTTInbound: Sendable, Equatable {
  case connectAck(sessionPresent: Bool, returnCode: UInt8)
  case publishAck(packetID: UInt16)
  case pingResponse
  case publish(topic: String, payload: [UInt8], qos: UInt8, packetID: UInt16?)

  /// The longest packet accepted from the broker: acknowledgements are 2-4 bytes, and this client subscribes to
  /// nothing, so anything long is a wrong server or a broken stream.
  public static let maxPacketBytes = 64 * 1024

  /// Decodes the first complete packet of `bytes`: the packet and the bytes it used, or nil when more bytes are
  /// needed. Throws `MQTTError.protocolViolation` for a malformed packet, one too long, or a type a broker never
  /// sends to a client (section 2.2.1).
  public static func decode(_ bytes: ArraySlice<UInt8>) throws(MQTTError) -> (MQTTInbound, Int)? {
    guard let first = bytes.first else { return nil }
    var length = 0
    var multiplier = 1
    var index = bytes.startIndex + 1
    while true {
      guard index < bytes.endIndex else { return nil }
      let byte = bytes[index]
      length += Int(byte & 0x7F) * multiplier
      index += 1
      if byte & 0x80 == 0 { break }
      multiplier *= 128
      guard multiplier <= 128 * 128 * 128 else { throw .protocolViolation("a remaining length longer than 4 bytes") }
    }
    guard length <= maxPacketBytes else {
      throw .protocolViolation("a packet of \(length) bytes from the broker (a publisher expects a few)")
    }
    guard bytes.endIndex - index >= length else { return nil }
    let body = bytes[index..<(index + length)]
    let used = index + length - bytes.startIndex
    let flags = first & 0x0F
    switch MQTTPacket.Kind(rawValue: first >> 4) {
    case .connectAck:
      guard flags == 0, body.count == 2, body[body.startIndex] & 0xFE == 0 else {
        throw .protocolViolation("a malformed CONNACK")
      }
      return (.connectAck(sessionPresent: body[body.startIndex] & 1 == 1, returnCode: body[body.startIndex + 1]), used)
    case .publishAck:
      guard flags == 0, body.count == 2 else { throw .protocolViolation("a malformed PUBACK") }
      return (.publishAck(packetID: UInt16(body[body.startIndex]) << 8 | UInt16(body[body.startIndex + 1])), used)
    case .pingResponse:
      guard flags == 0, body.isEmpty else { throw .protocolViolation("a malformed PINGRESP") }
      return (.pingResponse, used)
    case .publish:
      let qos = (flags >> 1) & 0x03
      guard qos < 3, body.count >= 2 else { throw .protocolViolation("a malformed PUBLISH") }
      let topicLength = Int(body[body.startIndex]) << 8 | Int(body[body.startIndex + 1])
      var cursor = body.startIndex + 2 + topicLength
      guard cursor <= body.endIndex else { throw .protocolViolation("a PUBLISH whose topic overruns it") }
      let topic = String(decoding: body[(body.startIndex + 2)..<cursor], as: UTF8.self)
      var packetID: UInt16?
      if qos > 0 {
        guard cursor + 2 <= body.endIndex else { throw .protocolViolation("a PUBLISH without its packet id") }
        packetID = UInt16(body[cursor]) << 8 | UInt16(body[cursor + 1])
        cursor += 2
      }
      return (.publish(topic: topic, payload: Array(body[cursor...]), qos: qos, packetID: packetID), used)
    case let kind:
      let name = kind.map { "\($0)" } ?? "reserved type \(first >> 4)"
      throw .protocolViolation("an unexpected \(name) packet from the broker")
    }
  }
}
