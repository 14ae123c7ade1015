/// The names of the parts a board is built from, shared by the board files that name them (Config) and the
/// drivers that talk to them (LinuxIO, Sensors). A leaf module: reading a board file links no libgpiod, and a
/// driver needs no TOML reader.

/// How a board file names a line: by its name in the device tree (`"GPIO17"`) or by its offset on the chip.
public enum GPIOLineID: Sendable, Hashable, CustomStringConvertible {
  case name(String)
  case offset(UInt32)

  public var description: String {
    switch self {
    case .name(let name): "'\(name)'"
    case .offset(let offset): "offset \(offset)"
    }
  }
}

