#if !STRESSMON_KERNEL_LANE
import Testing

/// The kernel lane's tests need gpio-sim and i2c-stub, which only the lane's VM has: they are compiled only into
/// scripts/kernel-lane's own builds (STRESSMON_KERNEL_LANE_BUILD=1, docs/kernel-lane.md). Here, one line says so.
@Test(
  "Kernel lane: GPIO and I2C through a real Linux kernel",
  .disabled("compiled and run only by scripts/kernel-lane, inside its VM (docs/kernel-lane.md)"))
func kernelLaneRunsInItsVM() {}
#endif
