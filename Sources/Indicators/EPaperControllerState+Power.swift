/// The panel's supply, switched by the HAT's PWR line (Waveshare e-Paper HAT rev 2.x: GPIO18 drives a load switch
/// on the panel's 3.3 V). Without power the controller is off: SPI bytes go nowhere, RST does nothing, and BUSY,
/// undriven, reads low through the input's pull-down. Switching it on is a power-on reset: registers at their
/// reset values and RAM full of noise; the glass keeps its picture either way (e-paper is bistable).
extension EPaperControllerState {
  /// How long BUSY stays high while the controller starts after power-up (typical; no datasheet figure).
  static let powerOnBusyMilliseconds: Int64 = 10
  /// Waveshare's drivers wait this long after the deep sleep command before switching the supply off
  /// ("important, at least 2s" in their examples, `module_exit` in epdconfig.py).
  static let powerOffAfterSleepMilliseconds: Int64 = 2_000

  mutating func setPower(on: Bool, now: Int64) {
    guard on != powered else { return }
    if on {
      powered = true
      resetRegisters()
      bwRAM = bwRAM.map { _ in noise.nextByte() }
      redRAM = redRAM.map { _ in noise.nextByte() }
      asleep = false
      sleptAt = nil
      busyUntil = now + Self.powerOnBusyMilliseconds
      return
    }
    if now < busyUntil || busyHeld {
      faults.append("power switched off while BUSY was high (an update or reset cut short)")
    }
    if asleep, let sleptAt, now - sleptAt < Self.powerOffAfterSleepMilliseconds {
      faults.append("power switched off \(now - sleptAt) ms after deep sleep (wait at least "
        + "\(Self.powerOffAfterSleepMilliseconds) ms)")
    }
    powered = false
    asleep = false
    sleptAt = nil
    busyUntil = 0
  }
}
