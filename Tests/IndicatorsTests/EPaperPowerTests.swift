import Indicators
import LinuxIO
import Testing

/// The Waveshare e-Paper HAT rev 2.x switches the panel's supply with GPIO18 (PWR): Waveshare's epdconfig.py raises
/// it in `module_init` before anything is sent and lowers it in `module_exit`, at least 2 s after deep sleep.
@Suite("E-paper power switch (PWR) and BUSY wiring")
struct EPaperPowerTests {
  @Test("PWR goes high for each refresh and low 2 s after deep sleep; the panel refreshes across power cuts",
        arguments: EPaperModel.all)
  func powerPerRefresh(model: EPaperModel) async throws {
    // Given a power-switched panel, off
    let panel = EmulatedPanel(model, powerSwitched: true)
    #expect(!panel.emulator.isPowered)
    let first = EmulatedPanel.frame(.mild, model: model)
    let second = EmulatedPanel.frame(.high, model: model, hrv: 23)
    // When the driver refreshes it fully, then partially
    try await panel.driver.refresh(first, mode: .full, previous: nil)
    // Then the glass shows the frame, nothing was refused, and the panel is off again
    #expect(panel.emulator.image == first)
    #expect(panel.emulator.faults == [])
    #expect(!panel.emulator.isPowered)
    // And the power stayed on 2 s beyond the refresh itself (full-refresh time + reset and polling)
    let elapsed = panel.clock.nowMilliseconds()
    let refresh = Int64(model.fullRefreshMilliseconds)
    #expect(elapsed >= refresh + EPaperDriver.powerOffDelayMilliseconds)
    #expect(elapsed < refresh + EPaperDriver.powerOffDelayMilliseconds + 200)
    // And a partial refresh after the power cut (RAM lost) still shows exactly the new frame
    try await panel.driver.refresh(second, mode: .partial, previous: first)
    #expect(panel.emulator.image == second)
    #expect(panel.emulator.partialRefreshCount == 1)
    #expect(panel.emulator.faults == [])
    #expect(!panel.emulator.isPowered)
  }

  @Test("A board file without pwr on a HAT rev 2.x: the refresh fails naming the PWR line, the glass is untouched")
  func powerNeverRaised() async throws {
    // Given a power-switched panel whose PWR line the driver was not given
    let model = EPaperModel.waveshare2in13V4
    let panel = EmulatedPanel(model, powerSwitched: true, wirePower: false)
    let before = panel.emulator.image
    let frame = EmulatedPanel.frame(.relaxed, model: model)
    // When the driver refreshes, it fails: BUSY (pulled down, nothing drives it) never rises after the update
    await #expect {
      try await panel.driver.refresh(frame, mode: .full, previous: nil)
    } throws: { error in
      let text = "\(error)"
      return text.contains("BUSY never went high after the full refresh") && text.contains("pwr = \"GPIO18\"")
    }
    // And it took the rise timeout, not the 10 s BUSY timeout
    #expect(panel.clock.nowMilliseconds() < 1_000)
    // And the unpowered controller took nothing: the glass is as it was
    #expect(panel.emulator.image == before)
    #expect(panel.emulator.faults.contains { $0.contains("no power") })
  }

  @Test("An open BUSY wire (reads low through the pull-down) fails at the first update, within 50 ms")
  func openBusyWire() async throws {
    let model = EPaperModel.waveshare1in54V2
    let panel = EmulatedPanel(model, powerSwitched: true, busy: OpenWire())
    await #expect {
      try await panel.driver.refresh(EmulatedPanel.frame(.mild, model: model), mode: .full, previous: nil)
    } throws: { error in
      "\(error)".contains("check the BUSY wire (HAT: GPIO24) and the PWR wire")
    }
    // And the failed refresh switched the panel off again
    #expect(!panel.emulator.isPowered)
  }

  @Test("The emulator refuses a power cut sooner than 2 s after deep sleep (why the driver waits)")
  func earlyPowerCutIsAFault() async throws {
    let model = EPaperModel.waveshare2in9V2
    let panel = EmulatedPanel(model, powerSwitched: true, wirePower: false)
    let power = panel.emulator.power
    try power.set(true)
    let driver = EPaperDriver(
      model: model, spi: panel.emulator.spi, dataCommand: panel.emulator.dataCommand, reset: panel.emulator.reset,
      busy: panel.emulator.busy, clock: panel.clock)
    try await driver.refresh(EmulatedPanel.frame(.moderate, model: model), mode: .full, previous: nil)
    #expect(panel.emulator.isAsleep)
    try await panel.clock.sleep(milliseconds: 500)
    try power.set(false)
    #expect(panel.emulator.faults == ["power switched off 500 ms after deep sleep (wait at least 2000 ms)"])
  }
}

/// A BUSY input with nothing connected: the pull-down holds it low.
private final class OpenWire: GPIOLine {
  var label: String { "open BUSY wire" }
  func set(_ active: Bool) throws {}
  func get() throws -> Bool { false }
  func release() {}
  var isReleased: Bool { false }
}
