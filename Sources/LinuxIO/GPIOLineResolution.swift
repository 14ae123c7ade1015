import BoardParts

/// How a board file's line reference becomes an offset on a chip, with the Raspberry Pi fall-back: when a line
/// called `GPIOn` is not found by name on a chip whose offsets are BCM GPIO numbers, offset n is used. The Pi 5's
/// RP1 on its first 6.1 kernels named the header lines after their pins (`PIN11` is GPIO17, `PIN18` is GPIO24);
/// later kernels and every Pi before it name them `GPIOn`. Offsets are BCM numbers on `pinctrl-bcm2835` (Pi 1-3,
/// Zero), `pinctrl-bcm2711` (Pi 4) and `pinctrl-rp1` (Pi 5), whatever the names say.
public enum GPIOLineResolution: Sendable, Hashable, CustomStringConvertible {
  /// Found by its name.
  case named(String, offset: UInt32)
  /// The board file gave the offset.
  case offset(UInt32)
  /// `GPIOn` is not a line name on this chip; offset n is used (the chip numbers its lines as BCM GPIOs).
  case bcmFallback(String, offset: UInt32)
  /// Neither a name nor a usable offset.
  case missing

  /// The offset to request, nil when missing.
  public var lineOffset: UInt32? {
    switch self {
    case .named(_, let offset), .offset(let offset), .bcmFallback(_, let offset): offset
    case .missing: nil
    }
  }

  public var description: String {
    switch self {
    case .named(let name, let offset): "'\(name)' (offset \(offset))"
    case .offset(let offset): "offset \(offset)"
    case .bcmFallback(let name, let offset): "'\(name)' not a line name here, so offset \(offset) (BCM numbering)"
    case .missing: "not found"
    }
  }
}

public enum GPIOLineResolver {
  /// Chips whose line offsets are the SoC's BCM GPIO numbers (the header's `GPIOn` is offset n).
  public static let bcmNumberedChipLabels: Set<String> = ["pinctrl-bcm2835", "pinctrl-bcm2711", "pinctrl-rp1"]

  /// Resolves `line` on the chip labelled `chipLabel` with `lineCount` lines; `find` looks a name up.
  public static func resolve(
    _ line: GPIOLineID, chipLabel: String, lineCount: Int, find: (String) -> UInt32?
  ) -> GPIOLineResolution {
    switch line {
    case .offset(let offset):
      return Int(offset) < lineCount ? .offset(offset) : .missing
    case .name(let name):
      if let offset = find(name) { return .named(name, offset: offset) }
      if bcmNumberedChipLabels.contains(chipLabel), let number = bcmNumber(name), number < lineCount {
        return .bcmFallback(name, offset: UInt32(number))
      }
      return .missing
    }
  }

  /// n of a `GPIOn` name (`GPIO17` → 17), nil for any other name.
  public static func bcmNumber(_ name: String) -> Int? {
    guard name.hasPrefix("GPIO") else { return nil }
    let digits = name.dropFirst(4)
    guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return Int(digits)
  }
}
