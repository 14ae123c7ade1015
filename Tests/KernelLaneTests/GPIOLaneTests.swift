#if STRESSMON_KERNEL_LANE
import BoardParts
import Foundation
import LinuxIO
import Testing

extension KernelLaneTests {
  /// `GPIODChip` (libgpiod 1 or 2, whichever the build compiled in) on gpio-sim chips laid out like a Pi 4 and a
  /// Pi 5: every value is read back from gpio-sim's sysfs, i.e. from the kernel, not from our own bookkeeping.
  @Suite("GPIO character device on gpio-sim")
  struct GPIO {
    @Test("The Pi 4 layout is found by its label; names, offsets and line count are the kernel's")
    func pi4ByLabel() throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let chip = try GPIODChip(label: "pinctrl-bcm2711")
      defer { chip.close() }
      #expect(chip.devicePath == "/dev/\(sim.chipName)")
      let info = try #require(chip.chipInfo())
      #expect(info.name == sim.chipName && info.lineCount == 58)
      let line = try #require(chip.inspect(.name("GPIO17")))
      #expect(line.resolution == .named("GPIO17", offset: 17))
      #expect(line.kernelName == "GPIO17" && !line.inUse)
      // An offset beyond GPIO27 has no name on this layout but exists
      #expect(chip.inspect(.offset(40))?.kernelName == "")
      #expect(chip.inspect(.offset(58)) == nil)
    }

    @Test("Outputs: the requested level, set values and active-low reach the line; release frees it")
    func outputs() throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let chip = try GPIODChip(label: "pinctrl-bcm2711")
      defer { chip.close() }
      // Given GPIO5 requested low and GPIO6 requested active-low and inactive
      let plain = try chip.requestOutput(.name("GPIO5"), initial: false)
      let inverted = try chip.requestOutput(.name("GPIO6"), initial: false, activeLow: true)
      #expect(try sim.value(5) == false)
      #expect(try sim.value(6) == true, "inactive on an active-low line is the high level")
      // When they are driven active
      try plain.set(true)
      try inverted.set(true)
      // Then the kernel shows GPIO5 high and GPIO6 low, and reading them back gives the logical values
      #expect(try sim.value(5) == true)
      #expect(try sim.value(6) == false)
      #expect(try plain.get() == true && inverted.get() == true)
      // And gpioinfo's view names us as the consumer until the lines are released
      #expect(chip.inspect(.name("GPIO5"))?.consumer == GPIOConsumer.name)
      plain.release()
      inverted.release()
      #expect(chip.inspect(.name("GPIO5"))?.inUse == false)
      #expect(throws: DeviceError.self) { try plain.set(false) }
    }

    @Test("Inputs read what the outside drives (gpio-sim's pull); the requested bias reaches the kernel")
    func inputsAndBias() throws {
      let sim = try KernelGPIOSim.pi4()
      defer { sim.remove() }
      let chip = try GPIODChip(label: "pinctrl-bcm2711")
      defer { chip.close() }
      // Given GPIO24 pulled up from outside, requested as-is: it reads high, and follows the outside
      try sim.setPull(24, up: true)
      let asIs = try chip.requestInput(.name("GPIO24"))
      #expect(try asIs.get() == true)
      try sim.setPull(24, up: false)
      #expect(try asIs.get() == false)
      try sim.setPull(24, up: true)
      #expect(try asIs.get() == true)
      asIs.release()
      // When it is requested again with the pull-down (as the e-paper driver requests BUSY)
      let pulledDown = try chip.requestInput(.name("GPIO24"), bias: .pullDown)
      // Then the kernel applied the bias: gpio-sim's pull is down and the line reads low
      #expect(try sim.pull(24) == "pull-down")
      #expect(try pulledDown.get() == false)
      // And with the pull-up bias it reads high
      pulledDown.release()
      let pulledUp = try chip.requestInput(.name("GPIO23"), bias: .pullUp)
      #expect(try sim.pull(23) == "pull-up")
      #expect(try pulledUp.get() == true)
    }

    @Test("A line the kernel holds (a hog) or another program holds is refused with EBUSY naming the holder")
    func heldLine() throws {
      let sim = try KernelGPIOSim.pi4(hogs: [.init(offset: 24, name: "lane-hog", direction: "input")])
      defer { sim.remove() }
      let chip = try GPIODChip(label: "pinctrl-bcm2711")
      defer { chip.close() }
      // Given GPIO24 hogged by the kernel and GPIO25 requested by another program
      let other = try GPIODChip(label: "pinctrl-bcm2711")
      defer { other.close() }
      let held = try other.request(.name("GPIO25"), direction: .output(initial: true), consumer: "other-program")
      defer { held.release() }
      // Then inspecting shows both holders
      #expect(chip.inspect(.name("GPIO24"))?.consumer == "lane-hog")
      #expect(chip.inspect(.name("GPIO25"))?.consumer == "other-program")
      // And requesting either fails with EBUSY, the message naming the line and its holder
      for (line, holder) in [("GPIO24", "lane-hog"), ("GPIO25", "other-program")] {
        #expect {
          _ = try chip.requestOutput(.name(line))
        } throws: { error in
          guard let error = error as? DeviceError else { return false }
          return error.errno == EBUSY && error.description.contains(line) && error.description.contains(holder)
        }
      }
    }

    @Test("A chip label no chip has: ENOENT, and the message lists the labels that exist")
    func missingChip() throws {
      let sim = try KernelGPIOSim.pi5Kernel61()
      defer { sim.remove() }
      #expect {
        _ = try GPIODChip(label: "pinctrl-bcm2711")
      } throws: { error in
        guard let error = error as? DeviceError else { return false }
        return error.errno == ENOENT && error.description.contains("'pinctrl-rp1'")
          && error.description.contains("gpiodetect")
      }
    }

    @Test("Pi 5 on a 6.1 kernel: GPIO17 is no line name there, so offset 17 (PIN11) is driven")
    func pi5Fallback() throws {
      let sim = try KernelGPIOSim.pi5Kernel61()
      defer { sim.remove() }
      let chip = try GPIODChip(label: "pinctrl-rp1")
      defer { chip.close() }
      let info = try #require(chip.inspect(.name("GPIO17")))
      #expect(info.resolution == .bcmFallback("GPIO17", offset: 17))
      #expect(info.kernelName == "PIN11")
      let reset = try chip.requestOutput(.name("GPIO17"), initial: false)
      try reset.set(true)
      #expect(try sim.value(17) == true)
      // The kernel's own names still resolve, and a GPIOn beyond the chip does not
      #expect(chip.inspect(.name("PIN18"))?.resolution == .named("PIN18", offset: 24))
      #expect(throws: DeviceError.self) { _ = try chip.requestOutput(.name("GPIO54")) }
    }
  }
}
#endif
