import Platform

/// The GPIO character devices in a directory (`/dev`): `gpiochipN` entries in the order of N. libgpiod 2 has no
/// "open by label", so both backends find a chip the same way: open each in turn and compare labels.
public enum GPIOChipDirectory {
  public static let defaultPath = "/dev"

  /// Paths of the `gpiochipN` entries in `directory`, by N (gpiochip2 before gpiochip10). Empty when the directory
  /// cannot be read.
  public static func chipPaths(in directory: String = defaultPath) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var numbered: [(number: Int, name: String)] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if let number = chipNumber(name) { numbered.append((number, name)) }
    }
    let separator = directory.hasSuffix("/") ? "" : "/"
    return numbered.sorted { $0.number < $1.number }.map { directory + separator + $0.name }
  }

  /// N of `gpiochipN`, nil for any other name.
  public static func chipNumber(_ name: String) -> Int? {
    guard name.hasPrefix("gpiochip") else { return nil }
    let digits = name.dropFirst("gpiochip".count)
    guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return Int(digits)
  }

  /// Whether an errno from opening a path means "this is not a GPIO chip" (libgpiod 1 and 2 differ here: a
  /// directory is EISDIR for one and ENOTTY for the other, /dev/null ENOTTY or ENODEV).
  public static func isNotAChip(errno code: Int32) -> Bool {
    code == ENOTTY || code == ENODEV || code == EISDIR || code == ENOTDIR || code == ENXIO
  }
}
