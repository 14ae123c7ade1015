import Store

/// How rows get their clocks. No row is ever stamped after the clock's now: a live run stamps from the clock
/// itself, and the faster-than-real runs are placed in the past.
///
/// - Live (a sensor, or a replay in real time): each row gets the clock at the moment it is produced minus how far
///   the data lags (the detector's and the IBI cleaner's delay), so an NTP step during a run is followed at once.
/// - A bounded run faster than real time (`--speed N` or `max` with `--duration`, or a replay of known length): the
///   rows keep the data's own spacing and are placed so that the data ends at the moment the run started
///   (origin = start − span). Nothing can be ahead of the clock, whatever the speed; a row is also clamped to the
///   clock reading taken when it is produced, so a run that overshoots its duration by a block stays behind it.
/// - An endless source at N× (the simulated board or the synthetic source without `--duration`): its length is
///   unknown, so no origin in the past can hold it. Its rows are stamped like a live run's, the lag divided by N:
///   their ends follow the wall clock and their windows (still the data's 60 s) overlap N-fold. Made for watching
///   the LEDs and the panel, not for a history; `--speed max` with an endless source needs `--duration`.
struct TimeBase: Sendable {
  enum Kind: Sendable {
    case live
    case placed(origin: ClockReading)
    case compressed(factor: Double)
  }

  let kind: Kind
  let clock: any StoreClock

  /// `span`: the data seconds a run faster than real time will cover, when known (the smaller of `--duration` and
  /// a replay's length); nil for an endless source.
  init(speed: RunSpeed, clock: any StoreClock, span: Double?) {
    self.clock = clock
    switch (speed, span) {
    case (.realtime, _):
      kind = .live
    case (_, let span?):
      let start = clock.reading()
      kind = .placed(origin: ClockReading(
        wall: start.wall - span, monotonic: start.monotonic - span, bootId: start.bootId,
        synchronised: start.synchronised))
    case (.times(let factor), nil):
      kind = .compressed(factor: factor)
    case (.max, nil):
      // Refused before a run starts (an endless source at max needs --duration); stamped as live if it ever ran.
      kind = .live
    }
  }

  /// The clock reading for an instant `dataSeconds` on the stream, when the stream has reached `streamSeconds`;
  /// `now` is the clock read when the row is produced (read here when not given). Never after `now`.
  func reading(at dataSeconds: Double, streamSeconds: Double, now: ClockReading? = nil) -> ClockReading {
    let now = now ?? clock.reading()
    let lag = max(0, streamSeconds - dataSeconds)
    switch kind {
    case .live:
      return now.shifted(by: -lag)
    case .compressed(let factor):
      return now.shifted(by: -lag / factor)
    case .placed(let origin):
      // Before the run's start on the monotonic clock too; clamped at 0 when the board has been up for less than
      // the span (a time before its boot), which keeps any later clock correction of such a row in the past.
      return ClockReading(
        wall: min(origin.wall + dataSeconds, now.wall),
        monotonic: max(0, min(origin.monotonic + dataSeconds, now.monotonic)), bootId: origin.bootId,
        synchronised: origin.synchronised)
    }
  }

  /// Wall seconds now on the run's timeline.
  func wall(streamSeconds: Double) -> Double {
    reading(at: streamSeconds, streamSeconds: streamSeconds).wall
  }

  /// Whether rows carry the data's own times (placed) rather than the clock's at the moment they are made.
  var isPlaced: Bool {
    if case .placed = kind { return true }
    return false
  }
}

extension ClockReading {
  /// The same reading `seconds` later (earlier when negative) on both clocks.
  func shifted(by seconds: Double) -> ClockReading {
    ClockReading(wall: wall + seconds, monotonic: monotonic + seconds, bootId: bootId, synchronised: synchronised)
  }
}
