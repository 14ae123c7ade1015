import Config
import FoundationEssentials
import LinuxIO
import Monitor
import Platform
import Sensors
import Signals
import TestSupport
import Testing

/// Replay, synthetic and ADS1x15 sources, and the factory that builds sources from board files.
@Suite("Pulse sources")
struct PulseSourceTests {
  static func readAll(_ source: any PulseSource, limit: Int = .max) async throws -> [PulseBlock] {
    var blocks: [PulseBlock] = []
    var samples = 0
    while samples < limit, let block = try await source.nextBlock() {
      blocks.append(block)
      samples += block.count
    }
    return blocks
  }

  @Test("Replay hands out a shared recording whole, at its sidecar's rate and polarity")
  func replayWholeFile() async throws {
    // Given
    let path = try SharedData.path("bsn_bvp_rest.csv")
    let source = try ReplayPulseSource(path: path)
    // When
    let blocks = try await Self.readAll(source)
    // Then: 105750 samples at 1000 Hz, BVP (pulses up), one channel, contiguous, 100 ms blocks.
    #expect(source.info.sampleRateHz == 1000)
    #expect(source.info.polarity == .normal)
    #expect(source.info.channels == ["ppg"])
    #expect(blocks.reduce(0) { $0 + $1.count } == 105_750)
    #expect(blocks.first?.count == 100)
    #expect(blocks.allSatisfy { $0.red.isEmpty && $0.gapBefore == 0 })
    let reference = try RecordingReader(path: path).readAll().flatMap { $0.channels[0] }
    #expect(blocks.flatMap(\.ir) == reference)
    #expect(try await source.nextBlock() == nil)
  }

  @Test("Replay keeps a recording's gaps as gaps and reads both channels of a 'record' file")
  func replayGaps() async throws {
    // Given: a file in the 'record' format with a 7-sample gap.
    let directory = try TemporaryDirectory("replay")
    defer { directory.remove() }
    let path = directory.file("rec.csv")
    let writer = try RecordingWriter(path: path, channels: ["ir", "red"])
    for i in 0..<50 { try writer.append([Int32(150_000 + i), Int32(120_000 + i)]) }
    writer.markGap(7)
    for i in 50..<80 { try writer.append([Int32(150_000 + i), Int32(120_000 + i)]) }
    try writer.finish(sidecar: RecordingSidecar(fs: 100, polarity: .inverted))
    // When
    let blocks = try await Self.readAll(try ReplayPulseSource(path: path))
    // Then
    let gapBlock = try #require(blocks.first { $0.gapBefore > 0 })
    #expect(gapBlock.gapBefore == 7)
    #expect(gapBlock.firstSampleIndex == 57)
    #expect(gapBlock.ir.first == 150_050 && gapBlock.red.first == 120_050)
    #expect(blocks.flatMap(\.ir).count == 80)
  }

  @Test("Replay in real time follows the clock: ten seconds of samples take ten seconds")
  func replayPacing() async throws {
    let clock = VirtualClock()
    let source = try ReplayPulseSource(
      path: try SharedData.path("bsn_bvp_rest.csv"), pacing: .realtime, clock: clock)
    let blocks = try await Self.readAll(source, limit: 10_000)
    #expect(blocks.reduce(0) { $0 + $1.count } == 10_000)
    #expect(clock.now() == 10_000_000_000)
  }

  @Test("A recording without a rate is refused with what to do")
  func replayWithoutRate() throws {
    let directory = try TemporaryDirectory("replay")
    defer { directory.remove() }
    let path = try directory.write("bare.csv", "ppg\n1\n2\n3\n")
    let error = #expect(throws: SensorError.self) { try ReplayPulseSource(path: path) }
    #expect(error?.description.contains("no sample rate") == true)
    #expect(try ReplayPulseSource(path: path, sampleRateHz: 50).info.sampleRateHz == 50)
  }

  @Test("The synthetic source is deterministic and beats at its heart rate")
  func synthetic() async throws {
    var configuration = SyntheticPulseConfiguration()
    configuration.heartRateBpm = 72
    configuration.durationSeconds = 60
    let first = SyntheticPulseSource(configuration: configuration)
    let second = SyntheticPulseSource(configuration: configuration)
    let a = try await Self.readAll(first)
    let b = try await Self.readAll(second)
    #expect(a == b)
    #expect(a.reduce(0) { $0 + $1.count } == 6000)
    let beats = await first.beatTimes
    #expect(abs(Double(beats.count) - 72) <= 2)
    let rate = pulseRate(a.flatMap(\.ir).map { -Double($0) }, sampleRate: 100)
    #expect(abs(rate - 72) < 4)
  }

  @Test("An analog pulse sensor on an ADS1115: host-timed samples of the latest conversion, the recording's pulse")
  func ads1115() async throws {
    // Given: the sensor on AIN1, converting at 860/s, sampled at 100/s.
    let clock = VirtualClock()
    var options = ADS1x15Emulator.Options()
    options.channel = 1
    let emulator = ADS1x15Emulator(waveform: try EmulatorFixture.waveform(), clock: clock, options: options)
    let bus = EmulatedI2CBus()
    bus.attach(emulator, at: 0x48)
    var configuration = ADS1x15Configuration()
    configuration.channel = 1
    let source = ADS1115Source(bus: bus, configuration: configuration, clock: clock)
    // When: 20 s.
    let blocks = try await Self.readAll(source, limit: 2000)
    // Then: 100 samples/s with no gaps, around 1.65 V (13,200 counts at ±4.096 V), pulses up at the recording's rate.
    #expect(source.info.polarity == .normal)
    #expect(blocks.allSatisfy { $0.gapBefore == 0 })
    let samples = blocks.flatMap(\.ir)
    #expect(samples.count == 2000)
    let mean = Double(samples.reduce(0) { $0 + Int64($1) }) / Double(samples.count)
    #expect(abs(mean - 13_200) < 400)
    let bvp = try RecordingReader(path: try SharedData.path("bsn_bvp_rest.csv")).readAll()[0].channels[0]
    let truth = pulseRate(bvp.prefix(20_000).map(Double.init), sampleRate: 1000)
    let rate = pulseRate(samples.map(Double.init), sampleRate: 100)
    #expect(abs(rate - truth) < 2, "ads \(rate), recording \(truth)")
    // The last sample is the emulator's latest conversion at that instant.
    #expect(Int16(samples.last!) == emulator.conversion(index: emulator.latestConversionIndex()!))
  }

  @Test("ADS1x15 settings: too slow a data rate, or one that cannot feed the output rate, is refused")
  func adsSettings() {
    var slow = ADS1x15Configuration()
    slow.dataRateSPS = 64
    #expect(throws: SensorError.self) { try slow.validate() }
    var starved = ADS1x15Configuration()
    starved.dataRateSPS = 128
    starved.outputRateHz = 100
    let error = #expect(throws: SensorError.self) { try starved.validate() }
    #expect(error?.description.contains("twice") == true)
  }

  @Test("ADS1x15 with nothing at its address: the driver says the device did not answer")
  func adsAbsent() async throws {
    let source = ADS1115Source(bus: EmulatedI2CBus(), configuration: ADS1x15Configuration(), clock: VirtualClock())
    let error = await #expect(throws: SensorError.self) { try await source.start() }
    #expect(error?.description.contains("0x48") == true)
  }

  // MARK: - Factory

  @Test("The sim board builds the emulated MAX30102 from its board file")
  func factorySim() async throws {
    let board = try BoardCatalog(directories: [SharedData.repositoryRoot + "/boards"]).load("sim")
    let source = try PulseSourceFactory.make(board: board, options: PulseSourceOptions(pacing: .asFastAsPossible))
    #expect(source.info.kind == "emulated max30102")
    #expect(source.info.sampleRateHz == 100)
    #expect(source.info.polarity == .inverted)
    let blocks = try await Self.readAll(source, limit: 3000)
    let rate = pulseRate(blocks.flatMap(\.ir).map { -Double($0) }, sampleRate: 100)
    #expect(rate > 55 && rate < 80)
  }

  @Test("A Pi board on a machine without I2C fails at once naming /dev/i2c-1 and how to enable it",
        .enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1")))
  func factoryMissingBus() throws {
    let board = try BoardCatalog(directories: [SharedData.repositoryRoot + "/boards"]).load("rpi4")
    let error = #expect(throws: SensorError.self) { _ = try PulseSourceFactory.make(board: board) }
    guard case .device(let device)? = error else {
      Issue.record("expected a device error, got \(String(describing: error))")
      return
    }
    #expect(device.path == "/dev/i2c-1")
    #expect(device.errno == ENOENT)
    #expect(error?.sysexitCode == 69)
  }

  @Test("--source specs parse, and unknown ones say what is allowed")
  func specs() throws {
    #expect(try PulseSourceSpec(parsing: "max30102") == .board)
    #expect(try PulseSourceSpec(parsing: "replay:/tmp/a.csv") == .replay(path: "/tmp/a.csv"))
    #expect(try PulseSourceSpec(parsing: "synthetic") == .synthetic)
    let error = #expect(throws: SensorError.self) { try PulseSourceSpec(parsing: "camera") }
    #expect(error?.description.contains("replay:FILE") == true)
  }

  // MARK: - Diagnostics

  @Test("doctor notices the kernel's max30102 driver holding the sensor and says how to unbind it")
  func kernelDriver() throws {
    // Given: a sysfs tree where 1-0057 is bound to the max30102 driver.
    let root = try TemporaryDirectory("sysfs")
    defer { root.remove() }
    let device = root.path + "/bus/i2c/devices/1-0057"
    try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root.path + "/bus/i2c/drivers/max30102", withIntermediateDirectories: true)
    #expect(symlink("../../../../bus/i2c/drivers/max30102", device + "/driver") == 0)
    // When
    let held = HardwareDiagnostics.kernelDriver(bus: 1, address: 0x57, sysfsRoot: root.path)
    let free = HardwareDiagnostics.kernelDriver(bus: 3, address: 0x57, sysfsRoot: root.path)
    // Then
    #expect(held.status == .fail)
    #expect(held.detail.contains("'max30102'"))
    #expect(held.fix?.contains("echo 1-0057 | sudo tee /sys/bus/i2c/drivers/max30102/unbind") == true)
    #expect(held.fix?.contains("blacklist max30102") == true)
    #expect(free.status == .pass)
  }

  @Test("doctor's node check tells a missing node from a forbidden one")
  func nodeCheck() throws {
    let missing = HardwareDiagnostics.deviceNode("/dev/spidev9.9", kind: .spi, name: "spi panel")
    #expect(missing.status == .fail)
    #expect(missing.detail == "/dev/spidev9.9 does not exist")
    #expect(missing.fix?.contains("dtparam=spi=on") == true)
    let present = HardwareDiagnostics.deviceNode("/dev/null", kind: .spi, name: "spi panel")
    #expect(present.status == .pass)
  }
}
