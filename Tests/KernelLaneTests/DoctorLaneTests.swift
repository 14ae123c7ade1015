#if STRESSMON_KERNEL_LANE
import Foundation
import TestSupport
import Testing

extension KernelLaneTests {
  /// `stressmon doctor` (the built binary) against the shipped rpi4 and rpi5 board files, with the sensor moved to
  /// the guest's i2c-stub bus (`bus = 0`) and everything else as shipped: the GPIO chip by label, every LED and
  /// e-paper line, the SPI node.
  @Suite("stressmon doctor on the lane's hardware")
  struct Doctor {
    /// The `stressmon` built against libgpiod 1 (the main build): the lane names it for its libgpiod 1 run only.
    static let binary = ProcessInfo.processInfo.environment["STRESSMON_KERNEL_LANE_STRESSMON"] ?? ""
    static let hasBinary = !binary.isEmpty && FileManager.default.isExecutableFile(atPath: binary)
    static let noBinary: Comment = "the lane runs stressmon doctor in its libgpiod 1 run, with the main build's binary"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path

    /// The shipped board file `name` with its sensor on the lane's bus.
    static func laneBoard(_ name: String, in directory: TemporaryDirectory) throws -> String {
      let shipped = try String(contentsOfFile: repository + "/boards/\(name).toml", encoding: .utf8)
      let moved = shipped.replacingOccurrences(of: "\nbus = 1 ", with: "\nbus = 0 ")
      #expect(moved != shipped, "boards/\(name).toml has no 'bus = 1' line to move")
      return try directory.write("\(name).toml", moved)
    }

    static func run(_ board: String) throws -> (status: Int32, checks: [[String: Any]], stderr: String) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = ["doctor", "--board", board, "--json"]
      let out = Pipe()
      let err = Pipe()
      process.standardOutput = out
      process.standardError = err
      try process.run()
      let stdout = out.fileHandleForReading.readDataToEndOfFile()
      let stderr = err.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      let json = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
      return (process.terminationStatus, try #require(json["checks"] as? [[String: Any]]),
              String(decoding: stderr, as: UTF8.self))
    }

    static func statuses(_ checks: [[String: Any]]) -> [String] {
      checks.map { "\($0["status"] as? String ?? "?") \($0["name"] as? String ?? "?")" }
    }

    @Test("rpi4: bus, identity, chip and all seven lines pass; only the FIFO and the SPI node cannot",
          .enabled(if: hasBinary, noBinary))
    func rpi4() throws {
      let directory = try TemporaryDirectory("lane-doctor")
      defer { directory.remove() }
      let board = try Self.laneBoard("rpi4", in: directory)
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let identity = try KernelLaneTests.I2C.loadIdentity()
      defer { try? identity.close() }
      let silicon = try StubSilicon()
      silicon.start()
      defer { silicon.stop() }
      let (status, checks, stderr) = try Self.run(board)
      #expect(status == 69)
      #expect(stderr.split(separator: "\n").count == 1)
      let summary = Self.statuses(checks)
      #expect(summary.filter { $0.hasPrefix("fail") } == ["fail sample rate", "fail spi panel"], "\(checks)")
      #expect(summary.filter { $0 == "pass gpio line" }.count == 7)
      let adapter = try #require(checks.first { $0["name"] as? String == "i2c adapter" })
      #expect(adapter["status"] as? String == "pass")
      #expect(adapter["detail"] as? String == "'SMBus stub driver' speaks SMBus only (no I2C_FUNC_I2C): the FIFO is "
        + "read in SMBus I2C-block reads of 5 samples (30 bytes)")
      // i2c-stub keeps no FIFO: the set-up goes through, no sample ever arrives
      let rate = try #require(checks.first { $0["name"] as? String == "sample rate" })
      #expect((rate["detail"] as? String)?.hasPrefix("measured 0 samples/s, configured 100") == true, "\(rate)")
      let identityCheck = try #require(checks.first { $0["name"] as? String == "sensor identity" })
      #expect((identityCheck["detail"] as? String)?.contains("PART_ID 0x15, REV_ID 0x03") == true)
      let chip = try #require(checks.first { $0["name"] as? String == "gpio chip" })
      #expect((chip["detail"] as? String)?.contains("/dev/\(sim.chipName)") == true)
    }

    @Test("rpi5 on a 6.1 kernel: each GPIOn line is found by the offset fall-back, named as the kernel names it",
          .enabled(if: hasBinary, noBinary))
    func rpi5() throws {
      let directory = try TemporaryDirectory("lane-doctor")
      defer { directory.remove() }
      let board = try Self.laneBoard("rpi5", in: directory)
      let sim = try KernelGPIOSim.pi5Kernel61()
      defer { sim.remove() }
      let identity = try KernelLaneTests.I2C.loadIdentity()
      defer { try? identity.close() }
      let (_, checks, _) = try Self.run(board)
      let lines = checks.filter { $0["name"] as? String == "gpio line" }.compactMap { $0["detail"] as? String }
      #expect(lines.count == 8)
      #expect(lines.contains(
        "e-paper RST: 'GPIO17' is not a line name on this kernel; using offset 17 (BCM GPIO17, named 'PIN11' here) "
          + "is free"))
      #expect(lines.contains { $0.hasPrefix("LED 4: 'GPIO19'") && $0.contains("'PIN35'") })
    }

    @Test("A panel line held by another consumer fails its check, naming the consumer",
          .enabled(if: hasBinary, noBinary))
    func heldLine() throws {
      let directory = try TemporaryDirectory("lane-doctor")
      defer { directory.remove() }
      let board = try Self.laneBoard("rpi4", in: directory)
      let sim = try KernelGPIOSim.pi4(hogs: [.init(offset: 24, name: "lane-hog", direction: "input")])
      defer { sim.remove() }
      let identity = try KernelLaneTests.I2C.loadIdentity()
      defer { try? identity.close() }
      let (status, checks, _) = try Self.run(board)
      #expect(status == 69)
      let busy = try #require(checks.first { ($0["detail"] as? String)?.hasPrefix("e-paper BUSY") == true })
      #expect(busy["status"] as? String == "fail")
      #expect((busy["detail"] as? String)?.contains("in use by lane-hog") == true)
      #expect((busy["fix"] as? String)?.contains("lane-hog") == true)
    }
  }
}
#endif
