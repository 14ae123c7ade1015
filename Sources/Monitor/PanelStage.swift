import Indicators
import Logging
import Platform
import Raster
import Synchronization

/// The e-paper panel as a pipeline stage: takes the newest content from its mailbox (older ones are coalesced
/// away while a refresh runs), lets the `RefreshPolicy` decide, refreshes, and on the simulated board writes the
/// emulated glass to the board's PNG after each refresh. A skipped update is tried again with the next one
/// (results come every step, 10 s by default).
final class PanelStage: Sendable {
  struct Command: Sendable {
    var content: PanelContent
    /// Wall clock for the refresh policy (Unix seconds).
    var wallSeconds: Int64
    var dataSeconds: Double
  }

  struct Counts: Sendable {
    var full = 0
    var partial = 0
    var failures = 0
  }

  let display: EPaperDisplay
  let model: EPaperModel
  let refreshPolicy: RefreshPolicy
  let mailbox: Mailbox<Command>
  let imagePath: String?
  private let emulator: EPaperEmulator?
  private let emit: @Sendable (MonitorEvent) -> Void
  /// Called with the failure (or nil when a refresh works again); set once the status board exists.
  let onFault = Mutex<(@Sendable (String?) -> Void)?>(nil)
  private let counts = Mutex(Counts())
  private let refreshing = Mutex(false)
  private let logger = Logger(label: "stressmon.monitor.panel")

  init(
    display: EPaperDisplay, model: EPaperModel, refreshPolicy: RefreshPolicy, emulator: EPaperEmulator?,
    imagePath: String?, mailbox policy: Mailbox<Command>.Policy,
    emit: @escaping @Sendable (MonitorEvent) -> Void
  ) {
    self.display = display
    self.model = model
    self.refreshPolicy = refreshPolicy
    self.emulator = emulator
    self.imagePath = imagePath
    mailbox = Mailbox(policy: policy)
    self.emit = emit
  }

  var refreshCounts: Counts { counts.withLock { $0 } }
  /// Whether a refresh is running now (the panel is busy).
  var isRefreshing: Bool { refreshing.withLock { $0 } }
  /// Whether the (emulated) panel draws nothing: in deep sleep, or switched off by its PWR line.
  var isAsleep: Bool? { emulator.map { $0.isAsleep || !$0.isPowered } }

  /// Shows each content handed over until the mailbox is finished; a refresh in progress always completes.
  func consume() async {
    var failing = false
    while let command = await mailbox.next() {
      let frame = PanelLayout.render(command.content, width: model.layoutWidth, height: model.layoutHeight).image
      let decision = refreshPolicy.decide(
        frame: frame, category: command.content.category, nowSeconds: command.wallSeconds, state: await display.state)
      guard let mode = decision.mode else { continue }
      refreshing.withLock { $0 = true }
      emit(.panelRefreshing(decision, at: EventTime(dataSeconds: command.dataSeconds)))
      defer { refreshing.withLock { $0 = false } }
      do {
        try await display.show(frame: frame, category: command.content.category, nowSeconds: command.wallSeconds)
        counts.withLock { counts in
          if mode == .full { counts.full += 1 } else { counts.partial += 1 }
        }
        if let emulator, let imagePath {
          do {
            try AtomicFile.write(PNGEncoder.encode(emulator.image), to: imagePath)
          } catch {
            logger.error("cannot write the panel image", metadata: ["path": "\(imagePath)", "error": "\(error)"])
          }
        }
        if failing {
          failing = false
          onFault.withLock { $0 }?(nil)
        }
        emit(.panel(decision, image: imagePath, at: EventTime(dataSeconds: command.dataSeconds)))
      } catch {
        counts.withLock { $0.failures += 1 }
        logger.error("panel refresh failed; the next one will be full", metadata: ["error": "\(error)"])
        failing = true
        onFault.withLock { $0 }?("\(error)")
      }
    }
  }

  /// Releases the panel's lines and bus; the picture stays (the panel sleeps after every refresh).
  func close() async {
    await display.close()
  }
}
