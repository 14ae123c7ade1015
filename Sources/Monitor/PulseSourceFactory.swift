import BoardParts
import Config
import LinuxIO
import Sensors

/// Which source to read: the board's sensor, a recording, or the synthetic pulse (`--source` of `stressmon run`).
public enum PulseSourceSpec: Sendable, Equatable {
  /// The sensor the board file describes (a real MAX3010x or ADS1x15, or the emulator on the sim board).
  case board
  case replay(path: String)
  case synthetic

  /// Parses `max30102` / `board` / `sensor`, `replay:FILE`, `synthetic`.
  public init(parsing text: String) throws(SensorError) {
    if text.hasPrefix("replay:") {
      let path = String(text.dropFirst("replay:".count))
      guard !path.isEmpty else {
        throw .invalidSettings(location: "--source", message: "replay needs a file: --source replay:FILE.csv")
      }
      self = .replay(path: path)
      return
    }
    switch text.lowercased() {
    case "board", "sensor", "max30102", "max30101", "max30105", "ads1115", "ads1015": self = .board
    case "synthetic": self = .synthetic
    default:
      throw .invalidSettings(
        location: "--source", message: "unknown source '\(text)'; use max30102 (the board's sensor), replay:FILE or synthetic")
    }
  }
}

/// How to build a source.
public struct PulseSourceOptions: Sendable {
  public var pacing: Pacing
  /// The clock; default: the system clock, or a virtual one for an emulated sensor read as fast as possible.
  public var clock: (any SensorClock)?
  /// Settings of the emulated MAX3010x (sim board); the part and recording come from the board file.
  public var emulator: MAX30102Emulator.Options
  /// How often a MAX3010x's FIFO is read.
  public var polling: FIFOPolling

  public init(
    pacing: Pacing = .realtime, clock: (any SensorClock)? = nil, emulator: MAX30102Emulator.Options = .init(),
    polling: FIFOPolling = .prompt
  ) {
    self.pacing = pacing
    self.clock = clock
    self.emulator = emulator
    self.polling = polling
  }
}

/// Builds sources from a board file or a `--source` spec: the one place that maps board settings to drivers.
public enum PulseSourceFactory {
  /// The board's sensor. A real part opens its bus here (a missing `/dev/i2c-N` fails now, with the fix).
  /// Pacing applies to emulated sensors; real hardware delivers in real time.
  public static func make(board: Board, options: PulseSourceOptions = .init()) throws(SensorError) -> any PulseSource {
    let sensor = board.sensor
    if sensor.part == .emulated {
      let clock = options.clock ?? (options.pacing == .realtime ? SystemClock() : VirtualClock())
      let configuration = try MAX30102Configuration(board: sensor)
      // The bus holds the emulator.
      let (bus, _) = try emulatedBus(for: board, clock: clock, options: options.emulator)
      return MAX30102Source(
        bus: bus, configuration: configuration, clock: clock, kind: "emulated \(configuration.part.rawValue)",
        polling: options.polling)
    }
    guard let i2c = board.i2c else {
      throw .invalidSettings(location: board.path, message: "the board has no [i2c] section for its \(sensor.part.rawValue)")
    }
    let clock = options.clock ?? SystemClock()
    if sensor.part.isMAX3010x {
      let configuration = try MAX30102Configuration(board: sensor)
      let bus: LinuxI2CBus
      do { bus = try LinuxI2CBus(path: i2c.device) } catch { throw .device(error) }
      return MAX30102Source(bus: bus, configuration: configuration, clock: clock, polling: options.polling)
    }
    if sensor.part.isADS1x15 {
      let configuration = try ADS1x15Configuration(board: sensor)
      let bus: LinuxI2CBus
      do { bus = try LinuxI2CBus(path: i2c.device) } catch { throw .device(error) }
      return ADS1115Source(bus: bus, configuration: configuration, clock: clock)
    }
    throw .unsupported(message: "\(board.path): no driver for part '\(sensor.part.rawValue)'")
  }

  /// A source from a `--source` spec; `.board` needs the board.
  public static func make(
    _ spec: PulseSourceSpec, board: Board?, options: PulseSourceOptions = .init()
  ) throws(SensorError) -> any PulseSource {
    let clock = options.clock ?? SystemClock()
    switch spec {
    case .board:
      guard let board else { throw .invalidSettings(location: "--source", message: "reading the sensor needs --board") }
      return try make(board: board, options: options)
    case .replay(let path):
      return try ReplayPulseSource(path: path, pacing: options.pacing, clock: clock)
    case .synthetic:
      return SyntheticPulseSource(pacing: options.pacing, clock: clock)
    }
  }

  /// The emulated bus of a board whose sensor is `emulated`: a MAX3010x emulator at the board's address, fed
  /// with the board's recording.
  public static func emulatedBus(
    for board: Board, clock: any SensorClock, options: MAX30102Emulator.Options = .init()
  ) throws(SensorError) -> (EmulatedI2CBus, MAX30102Emulator) {
    let sensor = board.sensor
    guard sensor.part == .emulated, let recording = sensor.recording else {
      throw .unsupported(message: "\(board.path): the sensor is not emulated")
    }
    var options = options
    options.part = sensor.emulates ?? .max30102
    if let seconds = sensor.stallAfterSeconds { options.stallAfter = Int64(seconds * 1e9) }
    let emulator = MAX30102Emulator(waveform: try PulseWaveform(recordingAt: recording), clock: clock, options: options)
    let bus = EmulatedI2CBus(path: "emulated bus (\(board.name))")
    bus.attach(emulator, at: sensor.address)
    return (bus, emulator)
  }
}
