import Foundation
import TestSupport
import Testing

/// `stressmon doctor`, run as a user would (the built binary).
@Suite("stressmon doctor")
struct DoctorCommandTests {
  static let noI2C = !FileManager.default.fileExists(atPath: "/dev/i2c-1")

  @Test("On this machine --board rpi4 fails with exit 69, naming /dev/i2c-1 and how to enable I2C",
        .enabled(if: noI2C))
  func rpi4WithoutI2C() throws {
    let result = try CLIRunner.run(["doctor", "--board", "rpi4"])
    #expect(result.status == 69)
    #expect(result.stdout.contains("FAIL  i2c bus          /dev/i2c-1 does not exist"))
    #expect(result.stdout.contains("dtparam=i2c_arm=on"))
    #expect(result.stdout.contains("SKIP  sensor identity"))
    #expect(result.stdout.contains("gpio chip") && result.stdout.contains("pinctrl-bcm2711"))
    let errorLines = result.stderr.split(separator: "\n")
    #expect(errorLines.count == 1)
    #expect(result.stderr.contains("/dev/i2c-1"))
  }

  @Test("--json lists every check with its status and fix", .enabled(if: noI2C))
  func json() throws {
    let result = try CLIRunner.run(["doctor", "--board", "rpi5", "--json"])
    #expect(result.status == 69)
    let json = try CLIRunner.json(result)
    #expect(json["ok"] as? Bool == false)
    #expect(json["board"] as? String == "rpi5")
    let checks = try #require(json["checks"] as? [[String: Any]])
    let bus = try #require(checks.first { $0["name"] as? String == "i2c bus" })
    #expect(bus["status"] as? String == "fail")
    #expect((bus["fix"] as? String)?.contains("raspi-config") == true)
    let chip = try #require(checks.first { $0["name"] as? String == "gpio chip" })
    #expect((chip["detail"] as? String)?.contains("pinctrl-rp1") == true)
  }

  @Test("--board sim passes every check against the emulator, from any working directory")
  func sim() throws {
    let result = try CLIRunner.run(["doctor", "--board", "sim", "--json"], workingDirectory: "/tmp")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let json = try CLIRunner.json(result)
    #expect(json["ok"] as? Bool == true)
    let checks = try #require(json["checks"] as? [[String: Any]])
    #expect(checks.allSatisfy { $0["status"] as? String == "pass" })
    let identity = try #require(checks.first { $0["name"] as? String == "sensor identity" })
    #expect((identity["detail"] as? String)?.contains("PART_ID 0x15") == true)
    let rate = try #require(checks.first { $0["name"] as? String == "sample rate" })
    #expect((rate["detail"] as? String)?.contains("configured 100") == true)
  }

  @Test("A missing board file is 'no input' (66); a malformed one is 'bad data' (65) with file and line")
  func badBoardFiles() throws {
    let missing = try CLIRunner.run(["doctor", "--board", "/nonexistent/board.toml"])
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("/nonexistent/board.toml"))
    let unknown = try CLIRunner.run(["doctor", "--board", "rpi9"])
    #expect(unknown.status == 66)
    #expect(unknown.stderr.contains("rpizero2w"))
    let directory = try TemporaryDirectory("doctor")
    defer { directory.remove() }
    let path = try directory.write("bad.toml", "[board]\nname = \"bad\"\n[sensor]\npart = \"max30102\n")
    let malformed = try CLIRunner.run(["doctor", "--board", path])
    #expect(malformed.status == 65)
    #expect(malformed.stderr.contains("\(path):4:"))
    #expect(malformed.stderr.split(separator: "\n").count == 1)
  }

  @Test("An I2C node the user may not open fails with EACCES and the group i2c fix",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
  func permissionDenied() throws {
    // Given: a board whose bus node exists but only root may open it, and a user who is not root.
    let directory = try TemporaryDirectory("doctor-perm")
    defer { directory.remove() }
    let node = try directory.write("i2c-1", "")
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: node)
    let board = try directory.write("perm.toml", """
      [board]
      name = "perm"
      [i2c]
      bus = 1
      device = "\(node)"
      [sensor]
      part = "max30102"
      """)
    // When: doctor runs as nobody.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
    process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                         CLIRunner.productsDirectory + "/stressmon", "doctor", "--board", board, "--json"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = Pipe()
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // Then
    #expect(process.terminationStatus == 69)
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let checks = try #require(json["checks"] as? [[String: Any]])
    let bus = try #require(checks.first { $0["name"] as? String == "i2c bus" })
    #expect(bus["status"] as? String == "fail")
    #expect((bus["detail"] as? String)?.contains("Permission denied") == true)
    #expect((bus["fix"] as? String)?.contains("usermod -aG i2c") == true)
    let group = try #require(checks.first { $0["name"] as? String == "group i2c" })
    #expect(group["status"] as? String == "fail")
  }
}
