/// Why a sync could not go on. Each case's description says what is wrong and what to do next.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The configuration cannot work (URL, token, CA file, plain HTTP without the explicit flag).
  case configuration(String)
  /// The hub refused the device itself (wrong token 401, another device 403, no such endpoint 404): retrying
  /// cannot help until someone fixes the token or the URL. Rows stay pending.
  case hubRefused(status: Int, message: String)
  /// The hub stayed unreachable or failing for the whole retry budget of one run. Rows stay pending.
  case hubUnavailable(attempts: Int, lastProblem: String)
  /// Reading or writing the outbox failed.
  case outbox(String)
  /// The run reached its deadline (seconds) before the outbox was drained. Rows stay pending.
  case deadline(seconds: Double, lastProblem: String?)

  public var description: String {
    switch self {
    case .configuration(let message):
      return "sync configuration: \(message)"
    case .hubRefused(let status, let message):
      let advice: String
      switch status {
      case 401: advice = "create a token with 'stressmon-hub token create --device ID' and pass it with --token-file"
      case 403: advice = "the token belongs to another device: use this device's own token"
      case 404: advice = "check --hub: it should be the hub's base URL, e.g. https://hub.local:8080"
      default: advice = "check the hub's logs"
      }
      return "the hub refused this device (HTTP \(status): \(message)); \(advice). Nothing was lost: rows stay in the outbox"
    case .hubUnavailable(let attempts, let lastProblem):
      return "the hub did not take the upload after \(attempts) attempt\(attempts == 1 ? "" : "s") (last: "
        + "\(lastProblem)); rows stay in the outbox and will be sent on the next run"
    case .outbox(let message):
      return "outbox: \(message)"
    case .deadline(let seconds, let lastProblem):
      let last = lastProblem.map { " (last problem: \($0))" } ?? ""
      return "sync stopped at its \(seconds.formattedSeconds) s deadline\(last); the rows left stay in the outbox "
        + "for the next run (a large backlog may need a longer --deadline)"
    }
  }
}
