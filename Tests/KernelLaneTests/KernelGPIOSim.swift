#if STRESSMON_KERNEL_LANE
import Foundation

/// One chip of the kernel's GPIO simulator (drivers/gpio/gpio-sim.c), made through configfs
/// (`/sys/kernel/config/gpio-sim/<device>/bank0`): a label, named lines, and hogs (lines the kernel itself holds
/// under a consumer name). Once live it is a real `/dev/gpiochipN` with the whole gpiolib and character-device
/// path behind it; `sim_gpioN/value` in sysfs shows a line's level and `sim_gpioN/pull` sets what the outside world
/// drives on an input.
final class KernelGPIOSim {
  static let configfs = "/sys/kernel/config/gpio-sim"

  struct Hog {
    var offset: Int
    /// The consumer `gpioinfo` shows for the line.
    var name: String
    /// `input`, `output-high` or `output-low`.
    var direction: String
  }

  let label: String
  let lineCount: Int
  /// The `gpiochipN` the kernel gave it.
  private(set) var chipName = ""
  private let device: String
  private var madeDirectories: [String] = []
  private nonisolated(unsafe) static var serial = 0

  // MARK: - Layouts

  /// A Raspberry Pi 4's header chip, as the lane presents it: label `pinctrl-bcm2711`, 58 lines, the header's
  /// GPIO0-GPIO27 named `GPIOn`.
  static func pi4(hogs: [Hog] = []) throws -> KernelGPIOSim {
    let names = Dictionary(uniqueKeysWithValues: (0...27).map { ($0, "GPIO\($0)") })
    return try KernelGPIOSim(label: "pinctrl-bcm2711", lineCount: 58, names: names, hogs: hogs)
  }

  /// A Raspberry Pi 5's RP1 on its first 6.1 kernels: label `pinctrl-rp1`, 54 lines named after the header pins
  /// (arch/arm/boot/dts/bcm2712-rpi-5-b.dts of the rpi-6.1.y branch): GPIO17 is `PIN11`, GPIO24 `PIN18`.
  static func pi5Kernel61(hogs: [Hog] = []) throws -> KernelGPIOSim {
    let names = [
      "ID_SD", "ID_SC", "PIN3", "PIN5", "PIN7", "PIN29", "PIN31", "PIN26", "PIN24", "PIN21", "PIN19", "PIN23", "PIN32",
      "PIN33", "PIN8", "PIN10", "PIN36", "PIN11", "PIN12", "PIN35", "PIN38", "PIN40", "PIN15", "PIN16", "PIN18",
      "PIN22", "PIN37", "PIN13", "PCIE_RP1_WAKE", "FAN_TACH", "HOST_SDA", "HOST_SCL", "ETH_RST_N", "-",
      "CD0_IO0_MICCLK", "CD0_IO0_MICDAT0", "RP1_PCIE_CLKREQ_N", "-", "CD0_SDA", "CD0_SCL", "CD1_SDA", "CD1_SCL",
      "USB_VBUS_EN", "USB_OC_N", "RP1_STAT_LED", "FAN_PWM", "CD1_IO0_MICCLK", "2712_WAKE", "CD1_IO1_MICDAT1",
      "EN_MAX_USB_CUR", "-", "-", "-", "-",
    ]
    let named = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.offset, $0.element) })
    return try KernelGPIOSim(label: "pinctrl-rp1", lineCount: names.count, names: named, hogs: hogs)
  }

  // MARK: - Initialization

  init(label: String, lineCount: Int, names: [Int: String], hogs: [Hog] = []) throws {
    self.label = label
    self.lineCount = lineCount
    Self.serial += 1
    device = Self.configfs + "/lane\(getpid())-\(Self.serial)"
    do {
      try makeDirectory(device)
      let bank = device + "/bank0"
      try makeDirectory(bank)
      try KernelLane.write(bank + "/label", label)
      try KernelLane.write(bank + "/num_lines", "\(lineCount)")
      for offset in Set(names.keys).union(hogs.map(\.offset)).sorted() {
        try makeDirectory(bank + "/line\(offset)")
        if let name = names[offset] { try KernelLane.write(bank + "/line\(offset)/name", name) }
      }
      for hog in hogs {
        let path = bank + "/line\(hog.offset)/hog"
        try makeDirectory(path)
        try KernelLane.write(path + "/name", hog.name)
        try KernelLane.write(path + "/direction", hog.direction)
      }
      try KernelLane.write(device + "/live", "1")
      chipName = try KernelLane.read(bank + "/chip_name")
    } catch {
      remove()
      throw error
    }
  }

  deinit { remove() }

  // MARK: - Lines

  /// The sysfs attribute `name` (`value` or `pull`) of line `offset`.
  func attributePath(_ offset: Int, _ name: String) -> String {
    "/sys/bus/gpio/devices/\(chipName)/sim_gpio\(offset)/\(name)"
  }

  /// The line's level as the kernel holds it (an output: what the consumer drives; an input: the pull).
  func value(_ offset: Int) throws -> Bool {
    try KernelLane.read(attributePath(offset, "value")) == "1"
  }

  /// What the outside world drives on the line: pulled up (high) or down (low).
  func setPull(_ offset: Int, up: Bool) throws {
    try KernelLane.write(attributePath(offset, "pull"), up ? "pull-up" : "pull-down")
  }

  func pull(_ offset: Int) throws -> String {
    try KernelLane.read(attributePath(offset, "pull"))
  }

  /// Takes the chip down and removes its configfs entries (children first). Idempotent.
  func remove() {
    guard !madeDirectories.isEmpty else { return }
    try? KernelLane.write(device + "/live", "0")
    for directory in madeDirectories.reversed() { rmdir(directory) }
    madeDirectories.removeAll()
  }

  private func makeDirectory(_ path: String) throws {
    guard mkdir(path, 0o755) == 0 else {
      throw LaneError("cannot create \(path): \(String(cString: strerror(errno)))")
    }
    madeDirectories.append(path)
  }
}
#endif
