import Indicators
import Raster
import Synchronization

/// The one place the daemon's state lives. The sampling loop, the store queue, the panel and the kiosk poller
/// change it; every change goes out to the LEDs (their state), the panel (its content) and the events, each
/// through its own mailbox, without waiting (paced runs) or with back-pressure from async callers (`--speed max`).
///
/// Locking: the status is inside a `Mutex`; fan-out happens after the lock is released, in the order changes
/// were made (a second lock serialises publishing so two changers never interleave their fan-outs).
final class StatusBoard: Sendable {
  struct Outputs: Sendable {
    var leds: Mailbox<LEDStage.Command>?
    var panel: Mailbox<PanelStage.Command>?
    var events: Mailbox<MonitorEvent>
    /// Wearable: the panel is refreshed only when `MonitorStatus.panelKey` changes.
    var panelOnKeyChangeOnly: Bool
    var localTime: @Sendable (Double) -> ClockTime
    /// Home Assistant over MQTT (`[mqtt] broker`): every status, newest wins.
    var mqtt: Mailbox<MQTTStage.Command>? = nil
  }

  private struct Published {
    var indicator: IndicatorState?
    var panelKey: String?
  }

  private let status: Mutex<MonitorStatus>
  private let published = Mutex(Published())
  private let outputs: Outputs
  /// Data seconds and wall seconds "now", for stamping status changes made outside the sampling loop.
  private let clocks: @Sendable () -> (data: Double, wall: Double)

  init(initial: MonitorStatus, outputs: Outputs, clocks: @escaping @Sendable () -> (data: Double, wall: Double)) {
    status = Mutex(initial)
    self.outputs = outputs
    self.clocks = clocks
  }

  var current: MonitorStatus { status.withLock { $0 } }

  /// Changes the status; publishes if it changed (nonblocking).
  func update(_ change: (inout MonitorStatus) -> Void) {
    let clocks = clocks()
    update(atData: clocks.data, wall: clocks.wall, change)
  }

  func update(atData data: Double, wall: Double, _ change: (inout MonitorStatus) -> Void) {
    published.withLock { published in
      let (before, after) = status.withLock { status -> (MonitorStatus, MonitorStatus) in
        let before = status
        change(&status)
        return (before, status)
      }
      guard before != after else { return }
      publish(after, data: data, wall: wall, published: &published)
    }
  }

  /// Shows the current status again (the first frame at start-up).
  func publishCurrent() {
    let clocks = clocks()
    published.withLock { published in
      publish(current, data: clocks.data, wall: clocks.wall, published: &published)
    }
  }

  /// Back-pressure for `--speed max`: waits until the outputs have room (call from the sampling loop only).
  func waitForRoom(limit: Int) async {
    let queues = [{ self.outputs.leds?.count ?? 0 }, { self.outputs.panel?.count ?? 0 }, { self.outputs.events.count }]
    for count in queues {
      while count() > limit {
        do { try await Task.sleep(nanoseconds: 200_000) } catch { return }
      }
    }
  }

  // MARK: - Private

  private func publish(_ status: MonitorStatus, data: Double, wall: Double, published: inout Published) {
    let at = EventTime(dataSeconds: data)
    outputs.events.offer(.state(status, at: at))
    outputs.mqtt?.offer(MQTTStage.Command(status: status))
    let indicator = status.indicatorState
    if let leds = outputs.leds, indicator != published.indicator {
      published.indicator = indicator
      leds.offer(LEDStage.Command(state: indicator, milliseconds: Int64((data * 1000).rounded())))
    }
    if let panel = outputs.panel {
      let key = status.panelKey
      if !outputs.panelOnKeyChangeOnly || key != published.panelKey {
        published.panelKey = key
        panel.offer(PanelStage.Command(
          content: status.panelContent(localTime: outputs.localTime), wallSeconds: Int64(wall.rounded(.down)),
          dataSeconds: data))
      }
    }
  }
}
