import ArgumentParser
import SyncWire

/// The root command. Each subcommand is its own type in its own file.
struct Stressmon: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stressmon",
    abstract: "Measures stress from a PPG pulse sensor and shows it on LEDs and an e-ink panel.",
    discussion: """
      stressmon reads a MAX30102 pulse sensor (or a recording), finds heart beats, computes heart-rate \
      variability (HRV) and a 0-100 stress level against your personal baseline, and shows the category \
      (relaxed, mild, moderate, high) so that it reads without colour: an icon and a fill pattern on the \
      e-ink panel, a blink pattern on the LED.

      Every command accepts --json for machine-readable output on stdout. Errors are one line on stderr; \
      exit codes follow sysexits (64 usage, 65 bad data, 66 no input, 69 unavailable, 70 internal, \
      73 cannot create, 74 I/O).

      Try:  stressmon score --hrv 35 --hr 78
      """,
    version: StressmonVersion.text,
    subcommands: CommandRegistry.all
  )
}

enum StressmonVersion {
  static let text = ProductVersion.text
}
