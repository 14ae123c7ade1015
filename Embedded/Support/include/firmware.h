// The C side of the QEMU firmware (scripts/build-embedded, docs/embedded.md): ARM semihosting for the host's
// files and the firmware's exit status, the timer that counts instructions under `-icount shift=0`, and the
// heap's high-water mark. Swift imports this header; nothing here is part of the pure core.
#ifndef STRESSMON_FIRMWARE_H
#define STRESSMON_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

/// Semihosting SYS_OPEN modes (ARM "Semihosting for AArch32 and AArch64", table 6-3).
enum { FW_MODE_READ_BINARY = 1, FW_MODE_WRITE_BINARY = 5 };

/// Opens a host file; returns a handle, or -1.
int fw_open(const char *path, int mode);
/// Reads up to `length` bytes; returns the number read (0 at the end of the file).
long fw_read(int handle, void *buffer, long length);
/// Writes `length` bytes; returns 0 when all were written.
long fw_write(int handle, const void *buffer, long length);
void fw_close(int handle);
/// The semihosting command line (QEMU: -semihosting-config arg=...), NUL-terminated; returns its length or -1.
long fw_command_line(char *buffer, long length);
/// Ends the emulation with `status` as QEMU's exit code.
void fw_exit(int status) __attribute__((noreturn));
/// Writes a NUL-terminated message to the host's console.
void fw_console(const char *message);

/// Starts the free-running counter used for instruction counts (see docs/embedded.md).
void fw_counter_start(void);
/// Counter ticks since fw_counter_start.
uint32_t fw_counter_ticks(void);
/// Instructions per counter tick under `qemu -icount shift=0` (one instruction per virtual nanosecond).
uint32_t fw_instructions_per_tick(void);

/// Counter ticks taken by a loop of exactly 2 × `iterations` instructions (SUBS + BNE): checks the count.
uint32_t fw_calibration_ticks(uint32_t iterations);

/// Bytes of heap handed out so far at most (the break's high-water mark).
size_t fw_heap_peak(void);
/// Bytes of heap allocated now (malloc's own count, without its free blocks).
size_t fw_heap_in_use(void);

#endif
