/// Why talking to the MQTT broker failed. Each description says what is wrong and what to do next.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The settings cannot work (URL, prefixes, credentials file, plain TCP without the explicit setting).
  case configuration(String)
  /// No connection: refused, unreachable, name not found, or closed by the broker.
  case unreachable(String)
  /// The broker did not answer in time (CONNACK, PUBACK or PINGRESP).
  case timeout(String)
  /// TLS failed: the broker's certificate is not trusted or is for another name.
  case tls(String)
  /// The broker answered CONNACK with a refusal (section 3.2.2.3).
  case refused(returnCode: UInt8)
  /// The broker sent bytes that are not MQTT 3.1.1 as a publisher receives it.
  case protocolViolation(String)

  public var description: String {
    switch self {
    case .configuration(let message):
      return "[mqtt]: \(message)"
    case .unreachable(let message):
      return "cannot reach the MQTT broker: \(message); check [mqtt] broker and that the broker runs"
    case .timeout(let message):
      return "the MQTT broker did not answer \(message) in time; check the broker's load and the network"
    case .tls(let message):
      return "TLS with the MQTT broker failed: \(message); set [mqtt] ca_file to the broker's CA, or check the host "
        + "name in [mqtt] broker"
    case .refused(let code):
      return "the MQTT broker refused the connection: \(Self.refusal(code))"
    case .protocolViolation(let message):
      return "the MQTT broker sent \(message); is [mqtt] broker an MQTT 3.1.1 broker (mosquitto, EMQX, HiveMQ)?"
    }
  }

  /// Whether retrying soon can help: a refusal of the credentials or the client id needs someone to act.
  public var needsAttention: Bool {
    switch self {
    case .refused(let code): code != 3
    case .configuration, .tls: true
    default: false
    }
  }

  /// CONNACK return codes 1-5 (section 3.2.2.3, table 3.1) with the fix.
  static func refusal(_ code: UInt8) -> String {
    switch code {
    case 1: "it does not speak MQTT 3.1.1 (return code 1); use a broker that does (mosquitto does)"
    case 2: "it rejected the client id (return code 2); set [device] id to a shorter plain name"
    case 3: "it is unavailable (return code 3); it will be tried again"
    case 4: "wrong user name or password (return code 4); fix [mqtt] credentials_file, or the broker's password file"
    case 5: "this client is not authorised (return code 5); allow the user in the broker's ACL, or set "
      + "[mqtt] credentials_file if it needs a login"
    default: "return code \(code), which MQTT 3.1.1 does not define"
    }
  }
}
