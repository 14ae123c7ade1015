import Config
import Sensors
import Signals
import TestSupport
import Testing

/// The MAX30102 as a `PulseSource`: LED current control, contact detection, and what the daemon receives.
@Suite("MAX30102 source")
struct MAX30102SourceTests {
  /// A source on the emulator with the given finger; returns the source and its emulator.
  static func source(
    finger: EmulatedFinger, configuration: MAX30102Configuration = MAX30102Configuration()
  ) throws -> (MAX30102Source, MAX30102Emulator, VirtualClock) {
    let clock = VirtualClock()
    var options = MAX30102Emulator.Options()
    options.finger = finger
    let emulator = MAX30102Emulator(waveform: try EmulatorFixture.waveform(), clock: clock, options: options)
    let bus = EmulatedI2CBus()
    bus.attach(emulator, at: 0x57)
    return (MAX30102Source(bus: bus, configuration: configuration, clock: clock), emulator, clock)
  }

  /// Reads `seconds` of samples; returns the blocks.
  static func read(_ source: MAX30102Source, seconds: Double) async throws -> [PulseBlock] {
    var blocks: [PulseBlock] = []
    var samples = 0
    while Double(samples) < seconds * source.info.sampleRateHz, let block = try await source.nextBlock() {
      blocks.append(block)
      samples += block.count + block.gapBefore
    }
    return blocks
  }

  static func meanLevel(_ values: [Int32]) -> Double {
    Double(values.reduce(0) { $0 + Int64($1) }) / Double(values.count) / 262_143
  }

  @Test("LED current control brings a dim or a clipping finger to 50-80 % of full scale", arguments: [0.3, 0.55, 2.5, 6.0])
  func ledCurrentConverges(reflectance: Double) async throws {
    // Given: a finger reflecting `reflectance` times the usual light, at the default 7 mA.
    let (source, _, _) = try Self.source(finger: EmulatedFinger().scaled(by: reflectance))
    try await source.start()
    // When: 12 s of samples.
    let blocks = try await Self.read(source, seconds: 12)
    // Then: the last 2 s sit in the window on both channels, and the changes were flagged as level steps.
    let tail = Array(blocks.suffix(20))
    let ir = Self.meanLevel(tail.flatMap(\.ir))
    let red = Self.meanLevel(tail.flatMap(\.red))
    #expect(LEDCurrentController.targetRange.contains(ir), "IR at \(ir)")
    #expect(LEDCurrentController.targetRange.contains(red), "red at \(red)")
    #expect(blocks.contains { $0.levelStepBefore })
    #expect(tail.allSatisfy { !$0.levelStepBefore })
    #expect(tail.last?.contact == .good)
    let currents = await source.ledCurrentsMilliamps
    #expect(reflectance < 1 ? currents.ir > 7 : currents.ir < 7)
  }

  @Test("A finger already in range keeps its LED current: no level steps")
  func noNeedlessChanges() async throws {
    let (source, _, _) = try Self.source(finger: EmulatedFinger())
    let blocks = try await Self.read(source, seconds: 8)
    #expect(blocks.allSatisfy { !$0.levelStepBefore })
    #expect(await source.ledCurrentsMilliamps.ir == 7)
  }

  @Test("No finger is reported as such, and the LED current is not raised to find one")
  func noFinger() async throws {
    // Given: nothing on the sensor.
    let (source, emulator, _) = try Self.source(finger: .absent)
    // When
    let empty = try await Self.read(source, seconds: 4)
    // Then
    #expect(empty.suffix(10).allSatisfy { $0.contact == .noFinger })
    #expect(await source.ledCurrentsMilliamps.ir == 7)
    // And when a finger arrives, contact is good again within two seconds.
    emulator.setFinger(EmulatedFinger())
    let touched = try await Self.read(source, seconds: 3)
    #expect(touched.last?.contact == .good)
  }

  @Test("What the daemon gets: IR and red at 100 samples/s, inverted polarity, contiguous indices")
  func blocksForTheDaemon() async throws {
    let (source, _, clock) = try Self.source(finger: EmulatedFinger())
    #expect(source.info.sampleRateHz == 100)
    #expect(source.info.polarity == .inverted)
    #expect(source.info.channels == ["ir", "red"])
    #expect(source.info.fullScale == 262_143)
    let start = clock.now()
    let blocks = try await Self.read(source, seconds: 10)
    #expect(blocks.allSatisfy { $0.ir.count == $0.red.count && $0.green.isEmpty && $0.gapBefore == 0 })
    #expect(zip(blocks, blocks.dropFirst()).allSatisfy { $0.endSampleIndex == $1.firstSampleIndex })
    // Blocks arrive at the poll interval (80 ms at 100 samples/s): about 8 samples each, on the clock's time.
    #expect(blocks.count > 100 && blocks.count < 150)
    #expect(abs(Double(clock.now() - start) / 1e9 - 10) < 0.2)
    await source.stop()
    #expect(try await source.nextBlock() == nil)
  }

  @Test("The emulated sensor is faithful: 18-bit counts, pulses down, DC set by the LED current, the recording's pulse")
  func emulatorFaithfulness() async throws {
    // Given: the same finger at two LED currents.
    var low = MAX30102Configuration()
    low.automaticLEDCurrent = false
    low.irCurrent = 20  // 4 mA
    var high = low
    high.irCurrent = 40  // 8 mA
    var levels: [Double] = []
    var ir: [Double] = []
    for configuration in [low, high] {
      let (source, _, _) = try Self.source(finger: EmulatedFinger(), configuration: configuration)
      let blocks = try await Self.read(source, seconds: 30)
      let values = blocks.flatMap(\.ir)
      levels.append(Self.meanLevel(values))
      ir = values.map(Double.init)
    }
    // Then: DC proportional to the LED current.
    #expect(abs(levels[1] / levels[0] - 2) < 0.01)
    // Pulses point down: the emulated IR is the recording's BVP upside down (correlation near -1 after
    // resampling 1000 → 100 Hz), at the recording's pulse rate.
    let recording = try RecordingReader(path: try SharedData.path("bsn_bvp_rest.csv"))
    let bvp = try recording.readAll().flatMap { $0.channels[0] }.map(Double.init)
    let resampled = stride(from: 0, to: 3000, by: 1).map { bvp[$0 * 10] }
    let n = min(resampled.count, ir.count)
    #expect(correlation(Array(ir.prefix(n)), Array(resampled.prefix(n))) < -0.99)
    let rate = pulseRate(Array(ir.prefix(n)).map { -$0 }, sampleRate: 100)
    let truth = pulseRate(Array(bvp.prefix(30_000)), sampleRate: 1000)
    #expect(abs(rate - truth) < 2, "emulated \(rate) bpm, recording \(truth) bpm")
  }
}

func correlation(_ a: [Double], _ b: [Double]) -> Double {
  let ma = a.reduce(0, +) / Double(a.count)
  let mb = b.reduce(0, +) / Double(b.count)
  var sab = 0.0
  var saa = 0.0
  var sbb = 0.0
  for (x, y) in zip(a, b) {
    sab += (x - ma) * (y - mb)
    saa += (x - ma) * (x - ma)
    sbb += (y - mb) * (y - mb)
  }
  return sab / (saa * sbb).squareRoot()
}
