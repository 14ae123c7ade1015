// The kernel lane's /init (scripts/kernel-lane): the only file of its initramfs, linked statically.
//
// Mounts the host's root, shared read-only by QEMU over 9p (mount tag "hostroot"), chroots into it, mounts the
// guest's own proc, sysfs, devtmpfs, configfs and tmpfs over it, runs `$STRESSMON_LANE --guest` (the lane's guest
// half) and when it ends reboots, which QEMU's -no-reboot turns into an exit. The kernel hands init the command
// line's NAME=value words as its environment; the STRESSMON_LANE* ones are passed on. (Not arguments after "--":
// QEMU's microvm appends its virtio-mmio devices to the command line, and after "--" the kernel would not see
// them.) Everything init says goes to the console with the prefix "init:".
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *what) {
  fprintf(stderr, "init: %s\n", what);
}

static void fail(const char *what) {
  fprintf(stderr, "init: %s failed: %s\n", what, strerror(errno));
  sync();
  reboot(RB_AUTOBOOT);
  _exit(1);
}

static void mount_or_fail(const char *source, const char *target, const char *type, unsigned long flags,
                          const char *options) {
  if (mount(source, target, type, flags, options) != 0) {
    char what[256];
    snprintf(what, sizeof what, "mount %s on %s", type, target);
    fail(what);
  }
}

// mkdir -p on the guest's own tmpfs.
static void make_directories(const char *path) {
  char partial[4096];
  size_t length = strlen(path);
  if (length >= sizeof partial) fail("a kept path is too long");
  for (size_t i = 1; i <= length; i++) {
    if (path[i] == '/' || path[i] == '\0') {
      memcpy(partial, path, i);
      partial[i] = '\0';
      if (mkdir(partial, 0755) != 0 && errno != EEXIST) fail("mkdir of a kept path");
    }
  }
}

// Brings the loopback interface up, as every booted system has it: Foundation's run loop (Process) makes its
// wake-up socket pair over 127.0.0.1.
static void loopback_up(void) {
  int sock = socket(AF_INET, SOCK_DGRAM, 0);
  if (sock < 0) fail("socket for the loopback interface");
  struct ifreq request;
  memset(&request, 0, sizeof request);
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(sock, SIOCGIFFLAGS, &request) != 0) fail("reading the flags of lo");
  request.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(sock, SIOCSIFFLAGS, &request) != 0) fail("bringing lo up");
  close(sock);
}

int main(void) {
  // The console: the kernel opened /dev/console for us only if the initramfs has it; make sure it does.
  mkdir("/dev", 0755);
  if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0) {
    int console = open("/dev/console", O_RDWR);
    if (console >= 0) {
      dup2(console, 0);
      dup2(console, 1);
      dup2(console, 2);
      if (console > 2) close(console);
    }
  }
  const char *program = getenv("STRESSMON_LANE");
  if (!program || !*program) {
    say("no STRESSMON_LANE=PROGRAM on the kernel command line; nothing to run");
    sync();
    reboot(RB_AUTOBOOT);
    return 1;
  }

  mkdir("/host", 0755);
  mount_or_fail("hostroot", "/host", "9p", MS_RDONLY,
                "trans=virtio,version=9p2000.L,cache=loose,msize=262144");
  if (chroot("/host") != 0) fail("chroot /host");
  if (chdir("/") != 0) fail("chdir /");

  mount_or_fail("proc", "/proc", "proc", 0, NULL);
  mount_or_fail("sysfs", "/sys", "sysfs", 0, NULL);
  mount_or_fail("devtmpfs", "/dev", "devtmpfs", 0, NULL);
  mount_or_fail("configfs", "/sys/kernel/config", "configfs", 0, NULL);
  // The guest gets its own /tmp and /run. A folder the lane needs from the host that lives under them (a clone in
  // /tmp, as CI makes) is bound aside first and put back at its own path on top of the new /tmp.
  mount_or_fail("tmpfs", "/run", "tmpfs", 0, "mode=0755");
  const char *keep[] = {getenv("STRESSMON_LANE_REPO"), getenv("STRESSMON_LANE_KERNEL")};
  char aside[2][64];
  int kept[2] = {0, 0};
  for (int i = 0; i < 2; i++) {
    if (!keep[i] || strncmp(keep[i], "/tmp/", 5) != 0) continue;
    snprintf(aside[i], sizeof aside[i], "/run/lane-keep-%d", i);
    mkdir(aside[i], 0755);
    mount_or_fail(keep[i], aside[i], NULL, MS_BIND, NULL);
    kept[i] = 1;
  }
  mount_or_fail("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
  for (int i = 0; i < 2; i++) {
    if (!kept[i]) continue;
    make_directories(keep[i]);
    mount_or_fail(aside[i], keep[i], NULL, MS_BIND, NULL);
  }

  loopback_up();

  pid_t child = fork();
  if (child < 0) fail("fork");
  if (child == 0) {
    char *environment[40] = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "HOME=/tmp",
      "TERM=dumb",
      "LANG=C.UTF-8",
    };
    int count = 4;
    for (char **entry = environ; *entry && count < 39; entry++) {
      if (strncmp(*entry, "STRESSMON_LANE", strlen("STRESSMON_LANE")) == 0) environment[count++] = *entry;
    }
    environment[count] = NULL;
    char *arguments[] = {(char *)program, "--guest", NULL};
    execve(program, arguments, environment);
    fprintf(stderr, "init: cannot run %s: %s\n", program, strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status)) {
    fprintf(stderr, "init: %s exited with %d\n", program, WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    fprintf(stderr, "init: %s was killed by signal %d\n", program, WTERMSIG(status));
  }
  sync();
  reboot(RB_AUTOBOOT);
  return 0;
}
