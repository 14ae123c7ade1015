#include "CLinuxShim.h"
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/timex.h>
#include <time.h>
#include <linux/spi/spidev.h>

int stressmon_spi_configure(int fd, uint8_t mode, uint8_t bits_per_word, uint32_t speed_hz) {
  if (ioctl(fd, SPI_IOC_WR_MODE, &mode) < 0) return -errno;
  if (ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &bits_per_word) < 0) return -errno;
  if (ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &speed_hz) < 0) return -errno;
  return 0;
}

int stressmon_spi_transfer(int fd, const uint8_t *tx, uint8_t *rx, uint32_t len, uint32_t speed_hz) {
  struct spi_ioc_transfer xfer;
  memset(&xfer, 0, sizeof xfer);
  xfer.tx_buf = (uintptr_t)tx;
  xfer.rx_buf = (uintptr_t)rx;
  xfer.len = len;
  xfer.speed_hz = speed_hz;
  xfer.bits_per_word = 8;
  if (ioctl(fd, SPI_IOC_MESSAGE(1), &xfer) < 0) return -errno;
  return 0;
}

int stressmon_clock_synchronised(void) {
  struct timex tx;
  memset(&tx, 0, sizeof tx);
  int state = adjtimex(&tx);
  if (state < 0) return -errno;
  if (state == TIME_ERROR || (tx.status & STA_UNSYNC)) return 0;
  return 1;
}

int64_t stressmon_boottime_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int stressmon_name_thread(const char *name) {
  return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) < 0 ? -errno : 0;
}
