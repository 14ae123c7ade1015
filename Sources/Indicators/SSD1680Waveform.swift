/// An SSD1680 waveform (the 153-byte LUT register, command 0x32, SSD1680 datasheet §6.7 "Waveform setting"), as
/// data: which source voltage each pixel transition gets in each phase, for how many frames, how often repeated.
///
/// Layout of the bytes: 5 LUTs × 12 groups of phase voltages (`VS`), then 12 groups × 7 timing bytes
/// (`TP A, TP B, SR AB, TP C, TP D, SR CD, RP`), then 6 frame-rate bytes and 3 gate-on bytes. LUT n drives the
/// pixels whose (RED RAM bit, BW RAM bit) is n = 2·red + bw; in display mode 2 the RED RAM holds the previous
/// frame, so LUT 1 is black→white and LUT 2 white→black (RAM bit 1 = white). LUT 4 is VCOM.
public struct SSD1680Waveform: Sendable, Hashable {
  /// Source voltage of one phase (2 bits).
  public enum Voltage: UInt8, Sendable, Hashable {
    case vss = 0b00, vsh1 = 0b01, vsl = 0b10, vsh2 = 0b11

    /// Which way the voltage moves a pixel: VSH drives black particles up (towards black), VSL towards white.
    public var drive: Int {
      switch self {
      case .vss: 0
      case .vsh1, .vsh2: 1
      case .vsl: -1
      }
    }
  }

  /// Pixel transitions, numbered as the LUTs are.
  public enum Transition: Int, Sendable, CaseIterable {
    case blackToBlack = 0, blackToWhite = 1, whiteToBlack = 2, whiteToWhite = 3
  }

  /// One phase of a group: the voltage per transition (LUT 0-3; VCOM stays at VSS) for `frames` frames.
  public struct Phase: Sendable, Hashable {
    public var frames: UInt8
    public var voltages: [Transition: Voltage]

    public init(frames: UInt8, _ voltages: [Transition: Voltage]) {
      self.frames = frames
      self.voltages = voltages
    }
  }

  /// Up to four phases (A-D) run `repeats + 1` times.
  public struct Group: Sendable, Hashable {
    public var phases: [Phase]
    public var repeats: UInt8

    public init(phases: [Phase], repeats: UInt8 = 0) {
      precondition(phases.count <= 4, "a group has four phases (A-D)")
      self.phases = phases
      self.repeats = repeats
    }
  }

  // MARK: - Properties

  public static let groupCount = 12
  public static let lutCount = 5
  public static let byteCount = 153

  public var groups: [Group]
  /// FR bytes (frame rate per pair of groups) and XON bytes (gates on), as the vendor sets them.
  public var frameRate: [UInt8]
  public var gateOn: [UInt8]
  /// The voltage registers the vendor sets with this waveform: 0x3F end option, 0x03 gate (VGH),
  /// 0x04 source (VSH1, VSH2, VSL), 0x2C VCOM.
  public var endOption: UInt8
  public var gateVoltage: UInt8
  public var sourceVoltages: [UInt8]
  public var vcom: UInt8

  // MARK: - Waveforms

  /// The partial-refresh waveform for SSD1680 panels without one in OTP (Waveshare 2.9" V2, `WF_PARTIAL_2IN9`):
  /// 10 frames (run twice) driving only the pixels that change, then one frame that touches up every pixel in
  /// its own colour, then a settling frame.
  public static let ssd1680Partial = SSD1680Waveform(
    groups: [
      Group(phases: [Phase(frames: 10, [.blackToWhite: .vsl, .whiteToBlack: .vsh1])], repeats: 1),
      Group(phases: [Phase(frames: 1, [.blackToBlack: .vsh1, .blackToWhite: .vsl, .whiteToBlack: .vsh1, .whiteToWhite: .vsl])]),
      Group(phases: [Phase(frames: 1, [:])]),
    ],
    frameRate: [UInt8](repeating: 0x22, count: 6), gateOn: [0, 0, 0],
    endOption: 0x22, gateVoltage: 0x17, sourceVoltages: [0x41, 0xB0, 0x32], vcom: 0x36)

  public init(
    groups: [Group], frameRate: [UInt8], gateOn: [UInt8], endOption: UInt8, gateVoltage: UInt8,
    sourceVoltages: [UInt8], vcom: UInt8
  ) {
    precondition(groups.count <= Self.groupCount && frameRate.count == 6 && gateOn.count == 3)
    self.groups = groups
    self.frameRate = frameRate
    self.gateOn = gateOn
    self.endOption = endOption
    self.gateVoltage = gateVoltage
    self.sourceVoltages = sourceVoltages
    self.vcom = vcom
  }

  // MARK: - Encoding

  /// The 153 bytes for command 0x32.
  public var bytes: [UInt8] {
    var out = [UInt8](repeating: 0, count: Self.byteCount)
    for (g, group) in groups.enumerated() {
      for (p, phase) in group.phases.enumerated() {
        let shift = UInt8(6 - 2 * p)
        for (transition, voltage) in phase.voltages {
          out[transition.rawValue * Self.groupCount + g] |= voltage.rawValue << shift
        }
      }
      let timing = Self.lutCount * Self.groupCount + g * 7
      let slots = [0, 1, 3, 4]  // TP A, TP B, TP C, TP D (SR AB and SR CD stay 0)
      for (p, phase) in group.phases.enumerated() { out[timing + slots[p]] = phase.frames }
      out[timing + 6] = group.repeats
    }
    let tail = Self.lutCount * Self.groupCount + Self.groupCount * 7
    out.replaceSubrange(tail..<(tail + 6), with: frameRate)
    out.replaceSubrange((tail + 6)..<(tail + 9), with: gateOn)
    return out
  }

  // MARK: - Decoding (the emulator runs what was written)

  /// The net drive a transition gets from LUT bytes: frames × repeats × direction, summed over every phase.
  /// Positive pushes towards black, negative towards white.
  public static func netDrive(of transition: Transition, lut bytes: [UInt8]) -> Int {
    guard bytes.count >= lutCount * groupCount + groupCount * 7 else { return 0 }
    var total = 0
    for g in 0..<groupCount {
      let voltages = bytes[transition.rawValue * groupCount + g]
      let timing = lutCount * groupCount + g * 7
      let repeats = Int(bytes[timing + 6]) + 1
      for (p, slot) in [0, 1, 3, 4].enumerated() {
        let voltage = Voltage(rawValue: (voltages >> UInt8(6 - 2 * p)) & 0b11)!
        total += voltage.drive * Int(bytes[timing + slot]) * repeats
      }
    }
    return total
  }
}
