import BoardParts
import LinuxIO
import StressModel

/// How a board's LEDs are wired. The daemon builds this from the board file (`Config` owns that format); the
/// indicator only needs the chip, the lines and the options.
public struct LEDWiring: Sendable, Hashable {
  /// Which LEDs exist.
  public enum Layout: Sendable, Hashable {
    /// One RGB LED, three on/off channels. Colours are the category colours reduced to what on/off channels can
    /// show (each channel on at ≥ 50 %): green, yellow, yellow, red — mild and moderate share yellow, their
    /// blink patterns tell them apart.
    case rgb(red: GPIOLineID, green: GPIOLineID, blue: GPIOLineID)
    /// Four single LEDs in a row, one per category in category order: position codes the category too.
    case bar(relaxed: GPIOLineID, mild: GPIOLineID, moderate: GPIOLineID, high: GPIOLineID)
    /// One single-colour LED: the blink pattern alone codes the category.
    case single(GPIOLineID)
  }

  /// The label of the GPIO chip the lines are on (`gpiodetect`), e.g. `pinctrl-bcm2711`.
  public var chipLabel: String
  public var layout: Layout
  /// LEDs wired from 3.3 V to the pin (common-anode RGB LEDs): lit when the line is low.
  public var activeLow: Bool
  /// Show the breathing pacer instead of the fast blink while stress is high (board file or flag).
  public var breathingPacerAtHighStress: Bool

  public init(chipLabel: String, layout: Layout, activeLow: Bool = false, breathingPacerAtHighStress: Bool = false) {
    self.chipLabel = chipLabel
    self.layout = layout
    self.activeLow = activeLow
    self.breathingPacerAtHighStress = breathingPacerAtHighStress
  }

  /// The lines in the order the indicator drives them (bit i of an `LEDStep` mask is line i).
  public var lines: [GPIOLineID] {
    switch layout {
    case .rgb(let red, let green, let blue): [red, green, blue]
    case .bar(let relaxed, let mild, let moderate, let high): [relaxed, mild, moderate, high]
    case .single(let line): [line]
    }
  }

  /// A short name per line for timelines: `red`/`green`/`blue`, the category names, or `led`.
  public var lineNames: [String] {
    switch layout {
    case .rgb: ["red", "green", "blue"]
    case .bar: StressCategory.allCases.map(\.rawValue)
    case .single: ["led"]
    }
  }
}
