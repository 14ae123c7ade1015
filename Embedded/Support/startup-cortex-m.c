// Start-up for QEMU's mps2-an386 (Arm MPS2 FPGA image AN386: a Cortex-M4 with 4 MB of code RAM at 0x0 and
// 4 MB of data RAM at 0x20000000; Arm DAI 0386). The vector table's first two words are the initial stack
// pointer and the reset handler; the reset handler copies .data from its load address, zeroes .bss, runs the
// Swift program's `main` and reports its status through semihosting. The core uses no FPU instruction (its
// Doubles are soft-float, the Cortex-M4F's FPU being single precision), so the FPU stays off.
#include "firmware.h"

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
extern int main(int argc, char **argv);

void reset_handler(void) __attribute__((noreturn));
void fault_handler(void) __attribute__((noreturn));

void reset_handler(void) {
  for (uint32_t *from = __data_load, *to = __data_start; to < __data_end;) *to++ = *from++;
  for (uint32_t *to = __bss_start; to < __bss_end;) *to++ = 0;
  fw_exit(main(0, 0));
}

void fault_handler(void) {
  fw_console("firmware: CPU fault (HardFault, MemManage, BusFault or UsageFault)\n");
  fw_exit(70);
}

// ARMv7-M vector table (ARM DDI 0403, B1.5.3): stack, reset, NMI, HardFault, MemManage, BusFault, UsageFault,
// four reserved, SVCall, DebugMonitor, reserved, PendSV, SysTick.
__attribute__((section(".vectors"), used)) static const void *const vectors[16] = {
  __stack_top, reset_handler, fault_handler, fault_handler, fault_handler, fault_handler, fault_handler,
  0, 0, 0, 0, fault_handler, fault_handler, 0, fault_handler, fault_handler,
};

// MARK: - Counter

// CMSDK APB timer 0 (Arm DDI 0479, 4.4), clocked by the 25 MHz peripheral clock of the AN386 image.
#define TIMER0_CTRL (*(volatile uint32_t *)0x40000000u)
#define TIMER0_VALUE (*(volatile uint32_t *)0x40000004u)
#define TIMER0_RELOAD (*(volatile uint32_t *)0x40000008u)
#define TIMER_FREQUENCY_HZ 25000000u

void fw_counter_start(void) {
  TIMER0_CTRL = 0;
  TIMER0_RELOAD = 0xFFFFFFFFu;
  TIMER0_VALUE = 0xFFFFFFFFu;
  TIMER0_CTRL = 1;  // enable, counting down
}

uint32_t fw_counter_ticks(void) { return 0xFFFFFFFFu - TIMER0_VALUE; }

// Under -icount shift=0 one guest instruction advances the virtual clock by 1 ns: 40 instructions per tick.
uint32_t fw_instructions_per_tick(void) { return 1000000000u / TIMER_FREQUENCY_HZ; }

uint32_t fw_calibration_ticks(uint32_t iterations) {
  fw_counter_start();
  __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(iterations) : : "cc");
  return fw_counter_ticks();
}
