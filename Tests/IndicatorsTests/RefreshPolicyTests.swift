import Indicators
import Raster
import StressModel
import TestSupport
import Testing

@Suite("Refresh policy protects the panel")
struct RefreshPolicyTests {
  let policy = RefreshPolicy()
  let model = EPaperModel.waveshare2in13V4

  func frame(_ category: StressCategory, hrv: Double = 42) -> Bitmap {
    EmulatedPanel.frame(category, model: model, hrv: hrv)
  }

  func state(_ category: StressCategory, at seconds: Int64, lastFull: Int64? = nil, partials: Int = 0) -> PanelState {
    PanelState(frame: frame(category), category: category, lastRefreshSeconds: seconds,
               lastFullRefreshSeconds: lastFull ?? seconds, partialsSinceFull: partials)
  }

  @Test("Unknown screen: full refresh")
  func unknown() {
    #expect(policy.decide(frame: frame(.mild), category: .mild, nowSeconds: 1_000, state: nil) == .full(.unknownScreen))
  }

  @Test("A decision reads in words and carries stable tokens for JSON")
  func words() {
    let first = policy.decide(frame: frame(.mild), category: .mild, nowSeconds: 1_000, state: nil)
    #expect("\(first)" == "full refresh (first picture: what the panel shows is not known)")
    #expect(first.modeToken == "full" && first.reasonToken == "unknownScreen")
    let soon = policy.decide(frame: frame(.high), category: .mild, nowSeconds: 1_010, state: state(.mild, at: 1_000))
    #expect(soon.modeToken == "skip" && soon.reasonToken == "tooSoon")
    #expect(RefreshDecision.partial.reasonToken == nil)
  }

  @Test("The same picture again: nothing to do")
  func unchanged() {
    #expect(policy.decide(frame: frame(.mild), category: .mild, nowSeconds: 5_000, state: state(.mild, at: 1_000))
      == .skip(.unchanged))
  }

  @Test("Same category within 180 s: skipped until 180 s have passed; then a partial refresh")
  func rateLimit() {
    let last = state(.mild, at: 1_000)
    let changed = frame(.mild, hrv: 30)
    #expect(policy.decide(frame: changed, category: .mild, nowSeconds: 1_179, state: last)
      == .skip(.tooSoon(retryAtSeconds: 1_180)))
    #expect(policy.decide(frame: changed, category: .mild, nowSeconds: 1_180, state: last) == .partial)
  }

  @Test("A new category is shown at once, even 10 s after the last refresh")
  func categoryChangeBypassesTheInterval() {
    #expect(policy.decide(frame: frame(.high), category: .high, nowSeconds: 1_010, state: state(.mild, at: 1_000))
      == .partial)
  }

  @Test("After 10 partial refreshes the next one is full")
  func partialLimit() {
    let tenPartials = state(.mild, at: 1_000, lastFull: 0, partials: 10)
    #expect(policy.decide(frame: frame(.high), category: .high, nowSeconds: 2_000, state: tenPartials) == .full(.partialLimit))
    let ninePartials = state(.mild, at: 1_000, lastFull: 0, partials: 9)
    #expect(policy.decide(frame: frame(.high), category: .high, nowSeconds: 2_000, state: ninePartials) == .partial)
  }

  @Test("A full refresh at least every 24 h")
  func dailyFull() {
    let old = state(.mild, at: 80_000, lastFull: 0, partials: 1)
    #expect(policy.decide(frame: frame(.mild, hrv: 30), category: .mild, nowSeconds: 86_400, state: old) == .full(.dailyFull))
    #expect(policy.decide(frame: frame(.mild, hrv: 30), category: .mild, nowSeconds: 86_399, state: old) == .partial)
  }

  @Test("The wall clock stepping back (no RTC before NTP) gives a full refresh")
  func clockBack() {
    #expect(policy.decide(frame: frame(.high), category: .high, nowSeconds: 500, state: state(.mild, at: 1_000))
      == .full(.clockWentBack))
  }
}

@Suite("E-paper display: policy, driver and state file together")
struct EPaperDisplayTests {
  let model = EPaperModel.waveshare2in9V2

  func content(_ category: StressCategory, hrv: Double = 42, status: [PanelStatus] = []) -> PanelContent {
    PanelContent(category: category, level: category.levelRange.lower + 5, hrvMs: hrv, heartRateBpm: 71,
                 measuredAt: ClockTime(hour: 9, minute: 41), status: status)
  }

  @Test("A day of results: full first, rate-limited partials, full after 10 partials; the glass always right")
  func sequence() async throws {
    let directory = try TemporaryDirectory("panel")
    defer { directory.remove() }
    let clock = VirtualIndicatorClock()
    let (display, emulator) = EPaperDisplay.simulated(model: model, statePath: directory.file("state.pbm"), clock: clock)
    var decisions: [RefreshDecision] = []
    var now: Int64 = 1_700_000_000
    // A result every 60 s, alternating HRV so the picture changes, category fixed: one refresh per 180 s
    for step in 0..<40 {
      let shown = content(.mild, hrv: 40 + Double(step % 7))
      decisions.append(try await display.show(shown, nowSeconds: now))
      if decisions.last?.mode != nil {
        let expected = PanelLayout.render(shown, width: model.layoutWidth, height: model.layoutHeight).image
        #expect(emulator.image == expected, "step \(step)")
      }
      now += 60
    }
    let refreshes = decisions.compactMap(\.mode)
    #expect(refreshes.first == .full)
    #expect(refreshes.count == 14)  // 40 minutes, one refresh per 3 minutes
    #expect(refreshes == [.full] + Array(repeating: .partial, count: 10) + [.full] + Array(repeating: .partial, count: 2))
    #expect(emulator.faults == [])
  }

  @Test("After a restart the previous frame comes from disk, so the partial refresh leaves no ghost")
  func restartKeepsThePreviousFrame() async throws {
    let directory = try TemporaryDirectory("panel")
    defer { directory.remove() }
    let statePath = directory.file("state.pbm")
    let clock = VirtualIndicatorClock()
    let emulator = EPaperEmulator(model: model, clock: clock)
    func display() -> EPaperDisplay {
      EPaperDisplay(driver: EPaperDriver(model: model, spi: emulator.spi, dataCommand: emulator.dataCommand,
                                         reset: emulator.reset, busy: emulator.busy, clock: clock),
                    statePath: statePath)
    }
    // Given a first daemon that showed "mild" and exited
    _ = try await display().show(content(.mild), nowSeconds: 1_000)
    // When a new daemon (same panel, same state file) shows "high" 10 minutes later
    let second = display()
    let decision = try await second.show(content(.high), nowSeconds: 1_600)
    // Then it refreshed partially against the right previous frame: the glass shows exactly the new picture
    #expect(decision == .partial)
    let expected = PanelLayout.render(content(.high), width: model.layoutWidth, height: model.layoutHeight).image
    #expect(emulator.image == expected)
    #expect(await second.state?.partialsSinceFull == 1)
  }

  @Test("A missing, corrupt or foreign state file means a full refresh, never a partial one on a guess")
  func badStateFile() async throws {
    let directory = try TemporaryDirectory("panel")
    defer { directory.remove() }
    let statePath = directory.file("state.pbm")
    let clock = VirtualIndicatorClock()
    for garbage in ["not an image", "P4\n# stressmon panel state v1\n# panel waveshare-2in13-v4\n250 122\n"] {
      _ = try directory.write("state.pbm", garbage)
      let (display, _) = EPaperDisplay.simulated(model: model, statePath: statePath, clock: clock)
      #expect(try await display.show(content(.high), nowSeconds: 2_000) == .full(.unknownScreen))
    }
  }

  @Test("A failed refresh forgets what the glass shows: the next refresh is full")
  func failureForgetsState() async throws {
    let directory = try TemporaryDirectory("panel")
    defer { directory.remove() }
    let clock = VirtualIndicatorClock()
    let (display, emulator) = EPaperDisplay.simulated(model: model, statePath: directory.file("state.pbm"), clock: clock)
    _ = try await display.show(content(.mild), nowSeconds: 1_000)
    emulator.holdBusy(true)
    await #expect(throws: EPaperError.self) { try await display.show(content(.high), nowSeconds: 2_000) }
    emulator.holdBusy(false)
    #expect(await display.state == nil)
    #expect(try await display.show(content(.high), nowSeconds: 3_000) == .full(.unknownScreen))
  }
}
