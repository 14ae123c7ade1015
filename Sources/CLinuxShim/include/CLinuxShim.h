// Kernel interfaces whose macros Swift cannot import (SPI_IOC_MESSAGE, SPI_IOC_WR_*), and small helpers that
// keep the Swift side free of struct layout guesses. Each function maps one-to-one onto one ioctl or syscall.
#ifndef CLINUXSHIM_H
#define CLINUXSHIM_H
#include <stdint.h>
#include <stddef.h>

/// Sets SPI mode (0-3), bits per word and max speed on an open spidev fd. Returns 0 or -errno.
int stressmon_spi_configure(int fd, uint8_t mode, uint8_t bits_per_word, uint32_t speed_hz);

/// One full-duplex SPI transfer of `len` bytes (tx may be NULL to clock out zeros, rx may be NULL).
/// Returns 0 or -errno.
int stressmon_spi_transfer(int fd, const uint8_t *tx, uint8_t *rx, uint32_t len, uint32_t speed_hz);

/// Reads the kernel clock status through adjtimex(2). Returns 1 if synchronised, 0 if STA_UNSYNC is set or
/// the maximum error is at its ceiling, or -errno.
int stressmon_clock_synchronised(void);

/// Boot-relative monotonic time in nanoseconds (CLOCK_BOOTTIME: keeps counting across suspend).
int64_t stressmon_boottime_ns(void);

/// Names the calling thread (at most 15 bytes show) for `top -H` and /proc/PID/task/TID/comm: prctl(PR_SET_NAME)
/// (pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc module does not set). Returns 0 or -errno.
int stressmon_name_thread(const char *name);

#endif
