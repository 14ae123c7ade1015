/// A source of pulse samples: a MAX3010x sensor, an ADS1x15 analog sensor, a recording replayed, or a synthetic
/// signal. The daemon and `stressmon record` see only this protocol.
///
/// Usage: `try await source.start()`, then `while let block = try await source.nextBlock() { ... }`, then
/// `await source.stop()`. Sources are actors: each owns its device handle, and may be driven from any task.
public protocol PulseSource: Actor {
  /// Rate, polarity, channels and settings; known before `start()`.
  nonisolated var info: PulseSourceInfo { get }

  /// Opens and configures the device (identity check, reset, settings). Calling it again does nothing.
  func start() async throws(SensorError)

  /// The next block of samples, waiting for them as needed. nil when the source has ended (end of a recording,
  /// `stop()` called) or the task was cancelled.
  func nextBlock() async throws(SensorError) -> PulseBlock?

  /// Stops sampling and releases the device (a MAX3010x goes to shutdown mode, drawing under 1 µA).
  func stop() async
}

/// How a replayed or emulated source paces its samples.
public enum Pacing: Sendable, Equatable {
  /// Samples arrive when they would from the sensor: one second of samples per second.
  case realtime
  /// As fast as the consumer takes them (analysis of a file, tests, `--speed max`).
  case asFastAsPossible
}
