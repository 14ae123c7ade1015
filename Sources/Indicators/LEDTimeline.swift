import LinuxIO
import StressModel

/// Turns the simulated board's GPIO events into lines for a terminal ("LED timeline to the terminal"): one line
/// per instant at which an LED changed, showing every LED. The library returns the lines; the CLI prints them.
public enum LEDTimeline {
  /// E.g. `"   1.250 s  red ●  green ●  blue ○"`. Times are relative to `originMilliseconds`.
  public static func lines(events: [GPIOEvent], wiring: LEDWiring, originMilliseconds: Int64 = 0) -> [String] {
    let keys = wiring.lines.map { "\($0)".filter { $0 != "'" } }
    var lit = [String: Bool]()
    var result: [String] = []
    var index = 0
    while index < events.count {
      let instant = events[index].milliseconds
      var changed = false
      while index < events.count, events[index].milliseconds == instant {
        let event = events[index]
        switch event.change {
        case .requested(let active), .set(let active):
          changed = changed || lit[event.line] != active
          lit[event.line] = active
        case .released:
          changed = true
          lit[event.line] = false
        }
        index += 1
      }
      guard changed else { continue }
      let leds = zip(wiring.lineNames, keys).map { name, key in "\(name) \(lit[key] == true ? "●" : "○")" }
      result.append(timeText(instant - originMilliseconds) + "  " + leds.joined(separator: "  "))
    }
    return result
  }

  /// Seconds with millisecond precision, right-aligned to 8 characters plus " s".
  static func timeText(_ milliseconds: Int64) -> String {
    let text = (Double(milliseconds) / 1000).formatted(decimals: 3)
    return String(repeating: " ", count: max(0, 8 - text.count)) + text + " s"
  }
}
