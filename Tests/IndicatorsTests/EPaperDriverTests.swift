import Indicators
import LinuxIO
import Platform
import Raster
import StressModel
import Testing

/// A driver wired to an emulated panel on virtual time.
struct EmulatedPanel {
  let clock = VirtualIndicatorClock()
  let emulator: EPaperEmulator
  let driver: EPaperDriver

  /// - Parameters:
  ///   - powerSwitched: the panel has the HAT rev 2.x PWR switch (off until raised);
  ///   - wirePower: whether the driver is given that line (false: a board file without `pwr`);
  ///   - busy: the BUSY line the driver reads (default: the panel's own).
  init(
    _ model: EPaperModel, busyTimeoutMilliseconds: Int64 = EPaperDriver.defaultBusyTimeoutMilliseconds,
    powerSwitched: Bool = false, wirePower: Bool = true, busy: (any GPIOLine)? = nil
  ) {
    emulator = EPaperEmulator(model: model, clock: clock, powerSwitched: powerSwitched)
    driver = EPaperDriver(
      model: model, spi: emulator.spi, dataCommand: emulator.dataCommand, reset: emulator.reset,
      busy: busy ?? emulator.busy, power: powerSwitched && wirePower ? emulator.power : nil, clock: clock,
      busyTimeoutMilliseconds: busyTimeoutMilliseconds)
  }

  static func frame(_ category: StressCategory?, model: EPaperModel, level: Double? = nil, hrv: Double = 42) -> Bitmap {
    let content = PanelContent(category: category, level: level ?? category.map { $0.levelRange.lower + 5 },
                               hrvMs: hrv, heartRateBpm: 71, measuredAt: ClockTime(hour: 9, minute: 41))
    return PanelLayout.render(content, width: model.layoutWidth, height: model.layoutHeight).image
  }
}

@Suite("SSD1680/SSD1681 driver against the panel emulator")
struct EPaperDriverTests {
  @Test("Init + full refresh: the glass shows the frame exactly, the controller accepted every byte, then sleeps",
        arguments: EPaperModel.all)
  func fullRefresh(model: EPaperModel) async throws {
    // Given a panel showing power-up noise
    let panel = EmulatedPanel(model)
    let frame = EmulatedPanel.frame(.moderate, model: model)
    #expect(panel.emulator.image != frame)
    // When the driver initialises it and runs a full refresh
    try await panel.driver.refresh(frame, mode: .full, previous: nil)
    // Then the glass (turned back to reading orientation) is the frame, pixel for pixel
    #expect(panel.emulator.image == frame)
    #expect(panel.emulator.faults == [])
    #expect(panel.emulator.fullRefreshCount == 1)
    // And the panel is in deep sleep between refreshes
    #expect(panel.emulator.isAsleep)
    // And the refresh took the panel's full-refresh time on the virtual clock, plus reset and polling
    let elapsed = panel.clock.nowMilliseconds()
    #expect(elapsed >= Int64(model.fullRefreshMilliseconds) && elapsed < Int64(model.fullRefreshMilliseconds) + 200)
  }

  @Test("Partial refresh: from sleep, with the previous frame, the glass shows the new frame", arguments: EPaperModel.all)
  func partialRefresh(model: EPaperModel) async throws {
    let panel = EmulatedPanel(model)
    let first = EmulatedPanel.frame(.mild, model: model)
    let second = EmulatedPanel.frame(.moderate, model: model, hrv: 31)
    try await panel.driver.refresh(first, mode: .full, previous: nil)
    try await panel.driver.refresh(second, mode: .partial, previous: first)
    #expect(panel.emulator.image == second)
    #expect(panel.emulator.partialRefreshCount == 1)
    #expect(panel.emulator.faults == [])
    #expect(panel.emulator.isAsleep)
  }

  @Test("A partial refresh against the wrong previous frame leaves ghosts: why the previous frame is kept",
        arguments: EPaperModel.all)
  func wrongPreviousGhosts(model: EPaperModel) async throws {
    // Given the panel shows "mild"
    let panel = EmulatedPanel(model)
    let shown = EmulatedPanel.frame(.mild, model: model)
    let next = EmulatedPanel.frame(.high, model: model)
    try await panel.driver.refresh(shown, mode: .full, previous: nil)
    // When a partial refresh is told the panel showed something else (e.g. state lost across a restart)
    try await panel.driver.refresh(next, mode: .partial, previous: EmulatedPanel.frame(.relaxed, model: model))
    // Then pixels that the driver believed unchanged keep their old ink: the picture is wrong
    #expect(panel.emulator.image.differingPixels(from: next) > 100)
  }

  @Test("Without a previous frame a partial request runs as a full refresh")
  func partialWithoutPrevious() async throws {
    let model = EPaperModel.waveshare2in13V4
    let panel = EmulatedPanel(model)
    let frame = EmulatedPanel.frame(.high, model: model)
    try await panel.driver.refresh(frame, mode: .partial, previous: nil)
    #expect(panel.emulator.image == frame)
    #expect(panel.emulator.fullRefreshCount == 1 && panel.emulator.partialRefreshCount == 0)
  }

  @Test("The 2.9\" V2 partial refresh runs the waveform the driver writes to the LUT register")
  func registerWaveform() {
    let lut = SSD1680Waveform.ssd1680Partial.bytes
    #expect(lut.count == 153)
    // Changing pixels are driven towards their new colour, unchanged ones only touched up in their own colour
    #expect(SSD1680Waveform.netDrive(of: .blackToWhite, lut: lut) < -10)
    #expect(SSD1680Waveform.netDrive(of: .whiteToBlack, lut: lut) > 10)
    #expect(SSD1680Waveform.netDrive(of: .blackToBlack, lut: lut) > 0)
    #expect(SSD1680Waveform.netDrive(of: .whiteToWhite, lut: lut) < 0)
    // Byte layout: LUT 1 group 0 phase A = VSL (0b10 in the top bits), group 0 TP A = 10 frames, RP = 1
    #expect(lut[12] == 0x80 && lut[24] == 0x40 && lut[60] == 10 && lut[66] == 1)
  }

  @Test("Deep sleep: the next refresh wakes the panel with a hardware reset; nothing is sent while it sleeps")
  func sleepAndWake() async throws {
    let model = EPaperModel.waveshare1in54V2
    let panel = EmulatedPanel(model)
    try await panel.driver.refresh(EmulatedPanel.frame(.relaxed, model: model), mode: .full, previous: nil)
    #expect(panel.emulator.isAsleep)
    try await panel.driver.refresh(EmulatedPanel.frame(.high, model: model), mode: .full, previous: nil)
    #expect(panel.emulator.image == EmulatedPanel.frame(.high, model: model))
    #expect(panel.emulator.faults == [])
    // A command sent to the sleeping panel without a reset is what a broken driver would do: the emulator sees it
    try await panel.driver.sleep()
    #expect(panel.emulator.faults.contains { $0.contains("deep sleep") })
  }

  @Test("BUSY stuck high: the refresh fails after the timeout with a message naming the panel and the step")
  func busyTimeout() async throws {
    let model = EPaperModel.waveshare2in9V2
    let panel = EmulatedPanel(model, busyTimeoutMilliseconds: 3_000)
    panel.emulator.holdBusy(true)
    let started = panel.clock.nowMilliseconds()
    await #expect {
      try await panel.driver.refresh(EmulatedPanel.frame(.mild, model: model), mode: .full, previous: nil)
    } throws: { error in
      guard case .busyTimeout(let name, let step, let waited) = error as? EPaperError else { return false }
      return name == "waveshare-2in9-v2" && step == "hardware reset" && waited >= 3_000
        && "\(error)".contains("check the BUSY wire")
    }
    #expect(panel.clock.nowMilliseconds() - started < 3_200)
  }

  @Test("A BUSY that never drops after the update names the refresh step")
  func busyTimeoutDuringUpdate() async throws {
    let model = EPaperModel.waveshare2in13V4
    // A timeout shorter than the panel's refresh stands for a panel that never finishes
    let panel = EmulatedPanel(model, busyTimeoutMilliseconds: Int64(model.fullRefreshMilliseconds) / 2)
    await #expect {
      try await panel.driver.refresh(EmulatedPanel.frame(.mild, model: model), mode: .full, previous: nil)
    } throws: { error in
      guard case .busyTimeout(_, let step, _) = error as? EPaperError else { return false }
      return step == "full refresh"
    }
  }

  @Test("Close releases DC, RST and BUSY and closes SPI; a closed driver refuses to refresh")
  func closeReleases() async throws {
    let model = EPaperModel.waveshare2in13V4
    let panel = EmulatedPanel(model)
    await panel.driver.close()
    await panel.driver.close()
    #expect(panel.emulator.releasedPins == ["DC", "RST", "BUSY"])
    #expect(panel.emulator.spiClosed)
    await #expect(throws: EPaperError.closed(panel: model.name)) {
      try await panel.driver.refresh(EmulatedPanel.frame(.mild, model: model), mode: .full, previous: nil)
    }
  }

  @Test("A frame of the wrong size is refused before anything is sent")
  func wrongSize() async {
    let panel = EmulatedPanel(.waveshare2in13V4)
    await #expect(throws: EPaperError.self) {
      try await panel.driver.refresh(Bitmap(width: 296, height: 128), mode: .full, previous: nil)
    }
    #expect(panel.emulator.fullRefreshCount == 0 && panel.emulator.faults == [])
  }

  @Test("On a machine without SPI or GPIO the real panel fails naming /dev/spidev0.0 or the chip")
  func realPanelMissing() {
    // Given the Waveshare HAT wiring (on a board where spidev0.0 exists, a missing chip label stands in)
    var pins = EPaperPins.waveshareHAT(chipLabel: "pinctrl-absent-\(getpid())")
    let spiPresent = access(pins.spiPath, F_OK) == 0
    #expect {
      _ = try EPaperDriver.open(model: .waveshare2in13V4, pins: pins)
    } throws: { error in
      let text = "\(error)"
      return spiPresent ? text.contains("GPIO chip 'pinctrl-absent-") : text.hasPrefix("/dev/spidev0.0: open failed")
    }
    pins.spiPath = "/dev/null"  // opens, but is no SPI device
    #expect(throws: DeviceError.self) { _ = try EPaperDriver.open(model: .waveshare2in13V4, pins: pins) }
  }
}
