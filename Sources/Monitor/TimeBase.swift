import Store

/// How rows get their clocks. A live run stamps each row from the clock at the moment it is produced, minus how
/// far the data lags (the detector's and the IBI cleaner's delay), so an NTP step during a run is followed at
/// once. A replay at N× or `max` has no meaningful "now" per sample: its rows are placed on the data's own
/// timeline from the clock reading at the start (row time = start + data seconds).
struct TimeBase: Sendable {
  enum Kind: Sendable {
    case live
    case simulated(origin: ClockReading)
  }

  let kind: Kind
  let clock: any StoreClock

  init(speed: RunSpeed, clock: any StoreClock) {
    self.clock = clock
    kind = speed == .realtime ? .live : .simulated(origin: clock.reading())
  }

  /// The clock reading for an instant `dataSeconds` on the stream, when the stream has reached `streamSeconds`.
  func reading(at dataSeconds: Double, streamSeconds: Double, now: ClockReading? = nil) -> ClockReading {
    switch kind {
    case .live:
      let reading = now ?? clock.reading()
      let lag = max(0, streamSeconds - dataSeconds)
      return ClockReading(
        wall: reading.wall - lag, monotonic: reading.monotonic - lag, bootId: reading.bootId,
        synchronised: reading.synchronised)
    case .simulated(let origin):
      return ClockReading(
        wall: origin.wall + dataSeconds, monotonic: origin.monotonic + dataSeconds, bootId: origin.bootId,
        synchronised: origin.synchronised)
    }
  }

  /// Wall seconds now on the run's timeline.
  func wall(streamSeconds: Double) -> Double {
    reading(at: streamSeconds, streamSeconds: streamSeconds).wall
  }
}
