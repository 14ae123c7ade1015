import Config
import Indicators
import LinuxIO
import Platform

/// The board file's LED wiring as the daemon builds it (Monitor's mapping is internal; this mirrors the three
/// layouts for assertions).
enum BoardOutputsView {
  static func wiring(_ board: Board) -> LEDWiring? {
    let lines = board.leds.lines
    switch board.leds.wiring {
    case .rgb: return LEDWiring(chipLabel: "simulated", layout: .rgb(red: lines[0], green: lines[1], blue: lines[2]))
    case .bar:
      return LEDWiring(
        chipLabel: "simulated", layout: .bar(relaxed: lines[0], mild: lines[1], moderate: lines[2], high: lines[3]))
    case .single: return LEDWiring(chipLabel: "simulated", layout: .single(lines[0]))
    case .none: return nil
    }
  }

  static func bits(_ mask: UInt8, count: Int) -> [Bool] {
    (0..<count).map { mask & (1 << $0) != 0 }
  }
}

enum DeviceErrorView {
  /// What a MAX30102 that stopped answering looks like on the bus.
  static func nack(path: String) -> DeviceError {
    DeviceError(kind: .i2c, path: path, operation: "transfer to 0x57", errno: EREMOTEIO)
  }
}
