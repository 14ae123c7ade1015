import Signals

/// A recording played back as a `PulseSource`: the CSV + sidecar format of `Signals` (what `stressmon record`
/// writes, and the shared data set). Gaps in the file stay gaps. Paced in real time or as fast as the consumer
/// reads, on an injectable clock.
public actor ReplayPulseSource: PulseSource {
  // MARK: - Properties

  public nonisolated let info: PulseSourceInfo
  /// The factor file values were multiplied by to become integers (`RecordingReader.scale`).
  public nonisolated let scale: Int32
  private let reader: RecordingReader
  private let pacing: Pacing
  private let clock: any SensorClock
  private let blockSamples: Int
  private var startTime: Int64?
  private var ended = false

  // MARK: - Initialization

  /// Opens `path`. Channels: `ir` and `red` (and `green`) when the file has them (a `stressmon record` file),
  /// else `column`, else the reader's default (`ppg`, `ir`, or the only column). Rate and polarity come from
  /// the sidecar unless given.
  public init(
    path: String, pacing: Pacing = .asFastAsPossible, clock: any SensorClock = SystemClock(),
    sampleRateHz: Double? = nil, polarity: Polarity? = nil, column: String? = nil, blockDuration: Double = 0.1
  ) throws(SensorError) {
    let reader: RecordingReader
    do {
      let probe = try RecordingReader(path: path, channels: column.map { [$0] })
      let lowered = probe.header.map { $0.lowercased() }
      var channels = probe.channelNames
      if column == nil && lowered.contains("ir") && lowered.contains("red") {
        channels = ["ir", "red"] + (lowered.contains("green") ? ["green"] : [])
      }
      reader = try RecordingReader(path: path, channels: channels)
    } catch {
      throw .recording(error)
    }
    guard let rate = sampleRateHz ?? reader.sidecar?.fs, rate > 0, rate.isFinite else {
      throw .invalidSettings(
        location: path,
        message: "the recording has no sample rate (no sidecar \(RecordingSidecar.path(forRecording: path)) with "
          + "'fs'); give the rate explicitly")
    }
    self.reader = reader
    self.pacing = pacing
    self.clock = clock
    scale = reader.scale
    blockSamples = max(1, Int((rate * blockDuration).rounded()))
    var settings = "replay of \(path)"
    if let sensor = reader.sidecar?.sensor { settings += " (\(sensor))" }
    info = PulseSourceInfo(
      kind: "replay", sampleRateHz: rate, polarity: polarity ?? reader.sidecar?.polarity ?? .normal,
      channels: reader.channelNames.map { $0.lowercased() }, fullScale: nil, settings: settings)
  }

  /// Seconds of data in the recording at `path` (its last sample's place on the file's timeline, gaps included, at
  /// the sidecar's rate): a replay faster than real time is placed to end now (`stressmon run`). Reads the file
  /// once.
  public static func dataSeconds(path: String) throws(SensorError) -> Double {
    let reader: RecordingReader
    var samples = 0
    do {
      reader = try RecordingReader(path: path)
      while let block = try reader.nextBlock() { samples = block.firstSampleIndex + block.count }
    } catch {
      throw .recording(error)
    }
    guard let rate = reader.sidecar?.fs, rate > 0, rate.isFinite else {
      throw .invalidSettings(
        location: path,
        message: "the recording has no sample rate (no sidecar \(RecordingSidecar.path(forRecording: path)) with "
          + "'fs'); give the rate explicitly")
    }
    return Double(samples) / rate
  }

  // MARK: - PulseSource

  public func start() async throws(SensorError) {
    if startTime == nil { startTime = clock.now() }
  }

  public func nextBlock() async throws(SensorError) -> PulseBlock? {
    guard !ended else { return nil }
    if startTime == nil { startTime = clock.now() }
    let block: RecordingBlock?
    do { block = try reader.nextBlock(maxSamples: blockSamples) } catch { throw .recording(error) }
    guard let block else {
      ended = true
      return nil
    }
    if pacing == .realtime, let startTime {
      // The block is handed out when its last sample would have been measured.
      let end = Double(block.firstSampleIndex + block.count) / info.sampleRateHz
      do { try await clock.sleep(until: startTime + Int64(end * 1e9)) } catch { return nil }
    }
    let channels = block.channels
    return PulseBlock(
      gapBefore: block.gapBefore, firstSampleIndex: block.firstSampleIndex, ir: channels[0],
      red: channels.count > 1 ? channels[1] : [], green: channels.count > 2 ? channels[2] : [])
  }

  public func stop() async { ended = true }
}
