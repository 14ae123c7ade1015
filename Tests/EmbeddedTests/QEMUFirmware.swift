import Foundation
import TestSupport

/// The firmware scripts/build-embedded makes, run under QEMU through Embedded/Support/run-qemu.
enum QEMUFirmware {
  enum Arch: String, CaseIterable {
    case armv7em, aarch64

    var qemu: String { self == .armv7em ? "qemu-system-arm" : "qemu-system-aarch64" }
    var elf: String { SharedData.repositoryRoot + "/.build-embedded/\(rawValue)/firmware.elf" }
  }

  /// Why the firmware cannot run here (one line), or nil.
  static func unavailableReason(_ arch: Arch) -> String? {
    guard executableOnPath(arch.qemu) else { return "\(arch.qemu) not installed (scripts/setup --embedded)" }
    guard FileManager.default.fileExists(atPath: arch.elf) else {
      return "no \(arch.rawValue) firmware at .build-embedded/ (run scripts/build-embedded)"
    }
    return nil
  }

  struct Failed: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs the firmware on `input`; returns its output file's text.
  static func run(_ arch: Arch, input: FirmwareInput) throws -> String {
    let directory = try TemporaryDirectory("stressmon-qemu")
    defer { directory.remove() }
    let inputPath = directory.file("input.bin")
    let outputPath = directory.file("output.txt")
    try input.bytes.write(to: URL(fileURLWithPath: inputPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: SharedData.repositoryRoot + "/Embedded/Support/run-qemu")
    process.arguments = [arch.rawValue, inputPath, outputPath]
    let console = Pipe()
    process.standardOutput = console
    process.standardError = console
    try process.run()
    let text = console.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failed(
        description: "firmware under QEMU exited with \(process.terminationStatus): \(String(decoding: text, as: UTF8.self))")
    }
    return try String(contentsOfFile: outputPath, encoding: .utf8)
  }

  private static func executableOnPath(_ name: String) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
  }
}
