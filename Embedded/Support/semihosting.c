// ARM semihosting (ARM IHI 0039 / "Semihosting for AArch32 and AArch64" v2): the debugger, here QEMU, serves the
// host's files to the firmware. AArch32 M-profile traps with BKPT 0xAB, AArch64 with HLT 0xF000; the operation
// number goes in r0/w0 and a pointer to its parameter block in r1/x1.
#include "firmware.h"

enum {
  SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE0 = 0x04, SYS_WRITE = 0x05, SYS_READ = 0x06, SYS_FLEN = 0x0C,
  SYS_GET_CMDLINE = 0x15, SYS_EXIT_EXTENDED = 0x20,
};
/// ADP_Stopped_ApplicationExit: with SYS_EXIT_EXTENDED, the subcode becomes QEMU's exit status.
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

static intptr_t semihost(intptr_t operation, const void *parameters) {
#if defined(__aarch64__)
  register intptr_t x0 __asm__("x0") = operation;
  register const void *x1 __asm__("x1") = parameters;
  __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
  return x0;
#else
  register intptr_t r0 __asm__("r0") = operation;
  register const void *r1 __asm__("r1") = parameters;
  __asm__ volatile("bkpt #0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
#endif
}

static size_t length_of(const char *text) {
  size_t n = 0;
  while (text[n]) n++;
  return n;
}

int fw_open(const char *path, int mode) {
  intptr_t block[3] = {(intptr_t)path, mode, (intptr_t)length_of(path)};
  return (int)semihost(SYS_OPEN, block);
}

long fw_read(int handle, void *buffer, long length) {
  intptr_t block[3] = {handle, (intptr_t)buffer, length};
  intptr_t left = semihost(SYS_READ, block);  // bytes NOT read
  return left < 0 || left > length ? -1 : length - (long)left;
}

long fw_write(int handle, const void *buffer, long length) {
  intptr_t block[3] = {handle, (intptr_t)buffer, length};
  return (long)semihost(SYS_WRITE, block);
}

void fw_close(int handle) {
  intptr_t block[1] = {handle};
  semihost(SYS_CLOSE, block);
}

long fw_command_line(char *buffer, long length) {
  intptr_t block[2] = {(intptr_t)buffer, length};
  if (semihost(SYS_GET_CMDLINE, block) != 0) return -1;
  return (long)block[1];
}

void fw_console(const char *message) { semihost(SYS_WRITE0, message); }

void fw_exit(int status) {
  intptr_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, status};
  for (;;) semihost(SYS_EXIT_EXTENDED, block);
}
