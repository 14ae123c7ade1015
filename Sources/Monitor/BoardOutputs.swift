import Config
import Indicators
import LinuxIO

/// The board file's LEDs and panel in the Indicators module's terms (the board file is the one pin map).
enum BoardOutputs {
  /// The LED wiring, or nil when the board has none.
  static func ledWiring(_ board: Board, breathingPacer: Bool) -> LEDWiring? {
    let lines = board.leds.lines
    let layout: LEDWiring.Layout
    switch board.leds.wiring {
    case .rgb where lines.count == 3: layout = .rgb(red: lines[0], green: lines[1], blue: lines[2])
    case .bar where lines.count == 4:
      layout = .bar(relaxed: lines[0], mild: lines[1], moderate: lines[2], high: lines[3])
    case .single where lines.count == 1: layout = .single(lines[0])
    default: return nil
    }
    return LEDWiring(
      chipLabel: board.gpio.chipLabel ?? "simulated", layout: layout, activeLow: board.leds.activeLow,
      breathingPacerAtHighStress: breathingPacer)
  }

  /// The panel model, or nil when the board has none.
  static func panelModel(_ board: Board) -> EPaperModel? {
    board.epaper.panel == .none ? nil : EPaperModel.named(board.epaper.panel.rawValue)
  }

  /// Where a real panel is wired (the loader guarantees spi, dc, rst and busy on a board that is not simulated).
  static func panelPins(_ board: Board) -> EPaperPins? {
    let epaper = board.epaper
    guard let spi = epaper.spi, let dc = epaper.dc, let rst = epaper.rst, let busy = epaper.busy,
      let chip = board.gpio.chipLabel
    else { return nil }
    return EPaperPins(spiPath: spi, chipLabel: chip, dataCommand: dc, reset: rst, busy: busy, power: epaper.pwr)
  }
}
