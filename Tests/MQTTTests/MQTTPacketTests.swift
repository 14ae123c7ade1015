import MQTT
import Testing

/// The packets' bytes against MQTT 3.1.1 (OASIS, 2014): the remaining-length table of section 2.2.3, CONNECT's
/// layout (3.1), PUBLISH with QoS 1 and retain (3.3), and what a publisher decodes (CONNACK, PUBACK, PINGRESP).
@Suite("MQTT 3.1.1 packets")
struct MQTTPacketTests {
  @Test("the remaining length uses 1-4 bytes as in the standard's table 2.4", arguments: [
    (0, [0x00]), (127, [0x7F]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
    (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F]),
  ] as [(Int, [UInt8])])
  func remainingLength(length: Int, bytes: [UInt8]) {
    #expect(MQTTPacket.remainingLengthBytes(length) == bytes)
  }

  @Test("CONNECT carries protocol MQTT level 4, the flags, keep-alive, client id, will, user name and password")
  func connect() throws {
    let will = try MQTTMessage(topic: "s/d/availability", payload: Array("offline".utf8), retain: true)
    let packet = MQTTPacket.connect(MQTTConnect(
      clientID: "dev", keepAliveSeconds: 60, cleanSession: true, will: will, username: "u", password: Array("pw".utf8)))
    let body: [UInt8] = [0x00, 0x04] + Array("MQTT".utf8) + [0x04]
      // user name, password, will retain, will QoS 1, will, clean session
      + [0b1110_1110]
      + [0x00, 0x3C]
      + [0x00, 0x03] + Array("dev".utf8)
      + [0x00, 0x10] + Array("s/d/availability".utf8)
      + [0x00, 0x07] + Array("offline".utf8)
      + [0x00, 0x01] + Array("u".utf8)
      + [0x00, 0x02] + Array("pw".utf8)
    #expect(packet.encoded() == [0x10, UInt8(body.count)] + body)
  }

  @Test("CONNECT without will or login sets only the clean-session flag")
  func connectAnonymous() {
    let encoded = MQTTPacket.connect(MQTTConnect(clientID: "a", keepAliveSeconds: 5)).encoded()
    #expect(encoded == [0x10, 13, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x05, 0x00, 0x01, 0x61])
  }

  @Test("PUBLISH at QoS 1 retained: type 3, QoS bits 01, retain bit, topic, packet id, payload")
  func publish() throws {
    let message = try MQTTMessage(topic: "a/b", payload: [0x7B, 0x7D], retain: true)
    #expect(MQTTPacket.publish(message, packetID: 0x0102, duplicate: false).encoded()
      == [0x33, 9, 0x00, 0x03, 0x61, 0x2F, 0x62, 0x01, 0x02, 0x7B, 0x7D])
    #expect(MQTTPacket.publish(message, packetID: 7, duplicate: true).encoded()[0] == 0x3B)
    #expect(MQTTPacket.publish(message, packetID: nil, duplicate: false).encoded()[0] == 0x31)
  }

  @Test("PUBACK, PINGREQ and DISCONNECT are the fixed bytes of sections 3.4, 3.12 and 3.14")
  func fixedPackets() {
    #expect(MQTTPacket.publishAck(packetID: 0xBEEF).encoded() == [0x40, 0x02, 0xBE, 0xEF])
    #expect(MQTTPacket.pingRequest.encoded() == [0xC0, 0x00])
    #expect(MQTTPacket.disconnect.encoded() == [0xE0, 0x00])
  }

  @Test("a topic with a wildcard or nothing in it is refused")
  func topics() {
    for topic in ["", "a/+/b", "a/#", "a\u{0}b"] {
      #expect(throws: MQTTError.self) { try MQTTMessage(topic: topic, payload: [], retain: false) }
    }
  }

  @Test("CONNACK, PUBACK and PINGRESP decode with the bytes they used; a partial packet waits for more")
  func decode() throws {
    let stream: [UInt8] = [0x20, 0x02, 0x01, 0x05, 0x40, 0x02, 0x12, 0x34, 0xD0, 0x00, 0x40, 0x02, 0x00]
    let first = try #require(try MQTTInbound.decode(stream[...]))
    #expect(first.0 == .connectAck(sessionPresent: true, returnCode: 5))
    #expect(first.1 == 4)
    let second = try #require(try MQTTInbound.decode(stream[4...]))
    #expect(second.0 == .publishAck(packetID: 0x1234))
    let third = try #require(try MQTTInbound.decode(stream[8...]))
    #expect(third.0 == .pingResponse)
    #expect(try MQTTInbound.decode(stream[10...]) == nil)
    #expect(try MQTTInbound.decode([0x40, 0x82][...]) == nil)
  }

  @Test("a PUBLISH this client encodes decodes to the same topic, QoS, packet id and payload")
  func publishRoundTrip() throws {
    let message = try MQTTMessage(topic: "stressmon/x/state", payload: Array("{\"a\":1}".utf8), retain: true)
    let encoded = MQTTPacket.publish(message, packetID: 42, duplicate: false).encoded()
    let decoded = try #require(try MQTTInbound.decode(encoded[...]))
    #expect(decoded.0 == .publish(topic: message.topic, payload: message.payload, qos: 1, packetID: 42))
    #expect(decoded.1 == encoded.count)
  }

  @Test("malformed, oversized and server-only packets are protocol violations", arguments: [
    [0x20, 0x03, 0x00, 0x00, 0x00],  // CONNACK of 3 bytes
    [0x22, 0x02, 0x00, 0x00],  // CONNACK with flags
    [0x20, 0x02, 0x02, 0x00],  // reserved acknowledge flag
    [0x40, 0x01, 0x00],  // PUBACK of 1 byte
    [0xD0, 0x01, 0x00],  // PINGRESP with a body
    [0x10, 0x00],  // CONNECT: a server never sends it
    [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // a 5-byte remaining length
    [0x30, 0x81, 0x80, 0x04],  // a PUBLISH of 64 KiB + 1 byte
    [0x32, 0x03, 0x00, 0x01, 0x61],  // QoS 1 PUBLISH without its packet id
  ] as [[UInt8]])
  func violations(bytes: [UInt8]) {
    #expect(throws: MQTTError.self) { try MQTTInbound.decode(bytes[...]) }
  }
}
