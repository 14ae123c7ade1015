import Config
import Foundation
import Monitor
import Sensors
import Signals
import TestSupport
import Testing

/// `stressmon record`, run as a user would, on the simulated board.
@Suite("stressmon record")
struct RecordCommandTests {
  @Test("Recording the sim board gives the emulator's samples, with a sidecar analyze reads, at the recording's pulse rate")
  func recordSim() async throws {
    // Given / When: one minute of the emulated sensor, recorded as fast as possible from another directory.
    let directory = try TemporaryDirectory("record")
    defer { directory.remove() }
    let path = directory.file("sim.csv")
    let result = try CLIRunner.run(
      ["record", "--board", "sim", "--out", path, "--duration", "60", "--speed", "max", "--json"],
      workingDirectory: "/tmp")
    // Then: a clean run.
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let summary = try CLIRunner.json(result)
    #expect(summary["samples"] as? Int == 6000)
    #expect(summary["lost_samples"] as? Int == 0)
    #expect(summary["sample_rate_hz"] as? Double == 100)

    // The file in the recording format: ir, red, gap; sidecar with rate, polarity and the sensor settings.
    let reader = try RecordingReader(path: path, channels: ["ir", "red"])
    #expect(reader.header == ["ir", "red", "gap"])
    #expect(reader.scale == 1)
    let sidecar = try #require(reader.sidecar)
    #expect(sidecar.fs == 100)
    #expect(sidecar.polarity == .inverted)
    #expect(sidecar.columns == ["ir", "red", "gap"])
    #expect(sidecar.sensor?.contains("400 samples/s averaged by 4") == true)
    #expect(sidecar.license?.contains("MIT") == true)
    let blocks = try reader.readAll()
    #expect(blocks.count == 1 && blocks[0].gapBefore == 0)
    let ir = blocks[0].channels[0]
    let red = blocks[0].channels[1]
    #expect(ir.count == 6000)

    // The IR channel read back equals what the emulated sensor delivers (built here from the same board file).
    let board = try BoardCatalog(directories: [SharedData.repositoryRoot + "/boards"]).load("sim")
    let source = try PulseSourceFactory.make(board: board, options: PulseSourceOptions(pacing: .asFastAsPossible))
    var expectedIR: [Int32] = []
    var expectedRed: [Int32] = []
    while expectedIR.count < 6000, let block = try await source.nextBlock() {
      expectedIR += block.ir
      expectedRed += block.red
    }
    #expect(ir == Array(expectedIR.prefix(6000)))
    #expect(red == Array(expectedRed.prefix(6000)))

    // The pulse in it is the source recording's: the same rate (inverted, raw intensity pulses point down).
    let bvp = try RecordingReader(path: SharedData.repositoryRoot + "/demo/bsn_bvp_rest.csv").readAll()[0].channels[0]
    let truth = pulseRate(bvp.prefix(60_000).map(Double.init), sampleRate: 1000)
    let recorded = pulseRate(ir.map { -Double($0) }, sampleRate: 100)
    #expect(abs(recorded - truth) < 1.5, "recorded \(recorded) bpm, source recording \(truth) bpm")
  }

  @Test("Without the sensor's bus, record fails with exit 69 naming /dev/i2c-1 and creates no file",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1")))
  func recordWithoutBus() throws {
    let directory = try TemporaryDirectory("record")
    defer { directory.remove() }
    let path = directory.file("pi.csv")
    let result = try CLIRunner.run(["record", "--board", "rpi4", "--out", path, "--duration", "5"])
    #expect(result.status == 69)
    #expect(result.stderr.contains("/dev/i2c-1"))
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  @Test("Wrong options are usage errors (64) naming the option", arguments: [
    (["--board", "rpi4", "--speed", "max", "--duration", "5"], "--speed max"),
    (["--board", "sim", "--speed", "max"], "--duration"),
    (["--board", "sim", "--speed", "warp", "--duration", "5"], "--speed"),
    (["--board", "sim", "--duration", "abc"], "--duration"),
    (["--board", "sim", "--duration", "-3"], "--duration"),
  ])
  func usage(arguments: [String], flag: String) throws {
    let result = try CLIRunner.run(["record", "--out", "/tmp/never-written.csv"] + arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains(flag))
  }

  @Test("An output path that cannot be created is exit 73")
  func cannotCreate() throws {
    let result = try CLIRunner.run(
      ["record", "--board", "sim", "--out", "/nonexistent/dir/x.csv", "--duration", "1", "--speed", "max"])
    #expect(result.status == 73)
    #expect(result.stderr.contains("/nonexistent/dir/x.csv"))
  }
}
