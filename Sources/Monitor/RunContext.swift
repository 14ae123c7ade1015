import Store

/// What every stage of one run shares: its clocks, the time rows are stamped with, the event mailbox, the opened
/// LEDs and panel, and the status board that fans changes out to them. Built once by `Monitor.run`, handed to the
/// measuring or the kiosk pipeline.
struct RunContext: Sendable {
  let clocks: RunClocks
  /// The stream's "now" in data seconds.
  let dataClock: DataClock
  let timeBase: TimeBase
  let storeClock: any StoreClock
  let events: Mailbox<MonitorEvent>
  let outputs: OpenOutputs
  let status: StatusBoard
}
