import Logging
import Raster
import StressModel

/// The e-paper panel as the daemon uses it: lays out `PanelContent` for the panel, asks the `RefreshPolicy`
/// whether and how to refresh, drives the panel, and keeps what it shows in memory and on disk.
public actor EPaperDisplay {
  // MARK: - Properties

  public let model: EPaperModel
  public let policy: RefreshPolicy
  private let driver: EPaperDriver
  private let store: PanelStateStore
  /// What the glass shows, as far as we know; nil = unknown (the next refresh is full).
  public private(set) var state: PanelState?
  private let logger = Logger(label: "stressmon.indicators.display")

  // MARK: - Initialization

  /// - Parameter statePath: where the previous frame and refresh history are kept across restarts, e.g.
  ///   `/var/lib/stressmon/panel-state.pbm`.
  public init(driver: EPaperDriver, statePath: String, policy: RefreshPolicy = RefreshPolicy()) {
    model = driver.model
    self.driver = driver
    self.policy = policy
    store = PanelStateStore(path: statePath, panelName: driver.model.name)
    state = store.load()
  }

  /// A display on an emulated panel (the simulated board): read the picture from the returned emulator.
  /// `powerSwitched`: the emulated panel has the HAT rev 2.x PWR switch, which the driver then drives.
  public static func simulated(
    model: EPaperModel, statePath: String, clock: any IndicatorClock, policy: RefreshPolicy = RefreshPolicy(),
    powerSwitched: Bool = false
  ) -> (EPaperDisplay, EPaperEmulator) {
    let emulator = EPaperEmulator(model: model, clock: clock, powerSwitched: powerSwitched)
    let driver = EPaperDriver(model: model, spi: emulator.spi, dataCommand: emulator.dataCommand,
                              reset: emulator.reset, busy: emulator.busy,
                              power: powerSwitched ? emulator.power : nil, clock: clock)
    return (EPaperDisplay(driver: driver, statePath: statePath, policy: policy), emulator)
  }

  // MARK: - Public

  /// Shows `content` if the policy allows it now. `nowSeconds` is the wall clock (Unix seconds). A skipped update
  /// is not queued: call again with the next result (or at `retryAtSeconds`).
  @discardableResult
  public func show(_ content: PanelContent, nowSeconds: Int64) async throws -> RefreshDecision {
    let frame = PanelLayout.render(content, width: model.layoutWidth, height: model.layoutHeight).image
    return try await show(frame: frame, category: content.category, nowSeconds: nowSeconds)
  }

  /// Shows a ready-made frame (reading orientation) for `category`.
  @discardableResult
  public func show(frame: Bitmap, category: StressCategory?, nowSeconds: Int64) async throws -> RefreshDecision {
    let decision = policy.decide(frame: frame, category: category, nowSeconds: nowSeconds, state: state)
    guard let mode = decision.mode else {
      logger.debug("panel refresh skipped", metadata: ["reason": "\(decision)"])
      return decision
    }
    do {
      try await driver.refresh(frame, mode: mode, previous: mode == .partial ? state?.frame : nil)
    } catch {
      // The glass may be half-updated: forget what it shows so the next refresh is a full one.
      state = nil
      store.remove()
      throw error
    }
    let updated = state?.after(mode, frame: frame, category: category, nowSeconds: nowSeconds)
      ?? PanelState.fresh(frame: frame, category: category, nowSeconds: nowSeconds)
    state = updated
    do {
      try store.save(updated)
    } catch {
      logger.warning("cannot save the panel state; after a restart the first refresh will be full",
                     metadata: ["error": "\(error)"])
    }
    logger.info("panel refreshed", metadata: ["panel": "\(model.name)", "decision": "\(decision)"])
    return decision
  }

  /// Releases the panel's lines and bus (the picture stays on the glass).
  public func close() async {
    await driver.close()
  }
}
