// A SQLite VFS for power-cut tests (test-only). It wraps the default VFS and remembers, for every file, what was
// written since that file was last synced, with the bytes the writes replaced. At a simulated cut every later
// write, truncate, sync and delete fails (the process is "dead"); after the connections are closed,
// crashsim_reboot puts each file back to what a disk would hold after losing power: everything since its last
// sync dropped, or a torn prefix of it kept. The model follows SQLite's own crash tests (src/test6.c): a sync
// makes a file's earlier writes durable, nothing else does.
#ifndef CRASHSIM_H
#define CRASHSIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crashsim crashsim;

/// What the cut keeps of the writes a file had not synced.
enum crashsim_mode {
  /// Every unsynced write and truncate is undone.
  CRASHSIM_DROP_UNSYNCED = 0,
  /// A random prefix of the unsynced operations survives, the last of them possibly cut at a 512-byte sector.
  CRASHSIM_TORN_PREFIX = 1,
};

/// Registers a VFS called `name` over the default one (not made the default). NULL if SQLite refuses.
/// `shared_memory` 0 leaves out the shared-memory methods, as on a file system that cannot map them (some network
/// mounts): SQLite then cannot give WAL mode.
crashsim *crashsim_create(const char *name, int shared_memory);

/// Arms a cut after `events` more writes, truncates and syncs through this VFS (the event that reaches it fails);
/// 0 disarms.
void crashsim_arm(crashsim *sim, int64_t events);

/// 1 once the cut happened.
int crashsim_crashed(const crashsim *sim);

/// Call with every connection of this VFS closed. Puts each file back to its durable image (per `mode`, choices
/// drawn from `seed`), forgets the unsynced history and clears the cut. Returns how many files were changed, or -1
/// when a file could not be restored.
int crashsim_reboot(crashsim *sim, int mode, uint64_t seed);

/// Counters since creation: durable-state events seen, syncs, operations undone by reboots, bytes restored.
typedef struct crashsim_stats {
  int64_t events;
  int64_t syncs;
  int64_t undone_operations;
  int64_t restored_bytes;
} crashsim_stats;

crashsim_stats crashsim_get_stats(const crashsim *sim);

#ifdef __cplusplus
}
#endif

#endif
