// Start-up for QEMU's `virt` board with a Cortex-A53 (RAM from 0x40000000; QEMU loads the ELF there and enters
// it at EL1). Sets the stack, turns on the FP/SIMD unit (CPACR_EL1.FPEN: the Swift code uses hardware double
// precision), zeroes .bss, runs the Swift program's `main` and reports its status through semihosting.
#include "firmware.h"

extern char __bss_start[], __bss_end[];
extern int main(int argc, char **argv);

void aarch64_start(void) __attribute__((noreturn));

__attribute__((naked, section(".text.boot"))) void _start(void) {
  __asm__ volatile(
      "ldr x0, =__stack_top\n"
      "mov sp, x0\n"
      "mov x0, #(3 << 20)\n"
      "msr cpacr_el1, x0\n"
      "isb\n"
      "b aarch64_start\n");
}

void aarch64_start(void) {
  for (char *p = __bss_start; p < __bss_end; p++) *p = 0;
  fw_exit(main(0, 0));
}

// MARK: - Counter

// The generic timer's virtual count (CNTVCT_EL0) at CNTFRQ_EL0 Hz (62.5 MHz on QEMU 7.2's virt board).
static uint64_t counter_origin;

static uint64_t counter_now(void) {
  uint64_t value;
  __asm__ volatile("isb\nmrs %0, cntvct_el0" : "=r"(value));
  return value;
}

void fw_counter_start(void) { counter_origin = counter_now(); }

uint32_t fw_counter_ticks(void) { return (uint32_t)(counter_now() - counter_origin); }

// Under -icount shift=0 one guest instruction advances the virtual clock by 1 ns.
uint32_t fw_instructions_per_tick(void) {
  uint64_t frequency;
  __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(frequency));
  return (uint32_t)(1000000000u / frequency);
}

uint32_t fw_calibration_ticks(uint32_t iterations) {
  uint64_t n = iterations;
  fw_counter_start();
  __asm__ volatile("1: subs %0, %0, #1\n b.ne 1b" : "+r"(n) : : "cc");
  return fw_counter_ticks();
}
