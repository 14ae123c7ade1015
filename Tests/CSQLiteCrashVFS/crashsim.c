// The power-cut VFS of crashsim.h. Writes go through to the real file at once (so reads, locks and the WAL index
// behave exactly as with the default VFS); what makes the simulation is the undo log kept per file: every write and
// truncate since that file's last sync, with the bytes it replaced. A sync empties the log (those bytes are on the
// disk now). At the cut the process stops writing; crashsim_reboot then undoes, newest first, whatever a disk
// without power would not hold.
#include "crashsim.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: - State

enum { OP_WRITE = 0, OP_TRUNCATE = 1 };

/// One change to a file since its last sync.
typedef struct sim_op {
  int kind;
  /// Write: where it started. Truncate: the new size.
  int64_t offset;
  /// Write: bytes written. Truncate: 0.
  int64_t length;
  /// The file's size before the change.
  int64_t old_size;
  /// What the change replaced: a write's range inside the old file, or the tail a truncate cut off.
  unsigned char *old_bytes;
  int64_t old_length;
} sim_op;

/// A file (by path) and its changes since its last sync. Kept until the VFS goes away.
typedef struct sim_track {
  char *path;
  sim_op *ops;
  int count;
  int capacity;
  struct sim_track *next;
} sim_track;

struct crashsim {
  sqlite3_vfs base; // first: SQLite hands this pointer back to every method
  sqlite3_vfs *real;
  pthread_mutex_t lock;
  int armed;
  int64_t remaining;
  int crashed;
  sim_track *tracks;
  crashsim_stats stats;
  char *name;
  sqlite3_io_methods methods;
};

typedef struct sim_file {
  sqlite3_file base;
  crashsim *sim;
  /// NULL for files that are not tracked (temporary files, deleted on close).
  sim_track *track;
  /// The real VFS's file, allocated right after this struct (szOsFile covers both).
  sqlite3_file *real;
} sim_file;

static void free_ops(sim_track *track) {
  for (int i = 0; i < track->count; i++) free(track->ops[i].old_bytes);
  track->count = 0;
}

static sim_track *track_for(crashsim *sim, const char *path) {
  for (sim_track *track = sim->tracks; track; track = track->next) {
    if (strcmp(track->path, path) == 0) return track;
  }
  sim_track *track = calloc(1, sizeof(sim_track));
  if (!track) return NULL;
  track->path = strdup(path);
  if (!track->path) {
    free(track);
    return NULL;
  }
  track->next = sim->tracks;
  sim->tracks = track;
  return track;
}

static int append_op(sim_track *track, sim_op op) {
  if (track->count == track->capacity) {
    int capacity = track->capacity ? track->capacity * 2 : 64;
    sim_op *grown = realloc(track->ops, sizeof(sim_op) * (size_t)capacity);
    if (!grown) return SQLITE_NOMEM;
    track->ops = grown;
    track->capacity = capacity;
  }
  track->ops[track->count++] = op;
  return SQLITE_OK;
}

/// Counts one durable-state event; 0 when the process is (now) cut off. Called with the lock held.
static int take_event(crashsim *sim) {
  if (sim->crashed) return 0;
  sim->stats.events++;
  if (sim->armed && --sim->remaining <= 0) {
    sim->crashed = 1;
    return 0;
  }
  return 1;
}

/// The bytes of [offset, offset+length) of the real file that exist (none past its end).
static int capture(sqlite3_file *real, int64_t offset, int64_t length, int64_t size, unsigned char **bytes,
                   int64_t *captured) {
  *bytes = NULL;
  *captured = 0;
  int64_t end = offset + length < size ? offset + length : size;
  if (end <= offset) return SQLITE_OK;
  *captured = end - offset;
  *bytes = malloc((size_t)*captured);
  if (!*bytes) return SQLITE_NOMEM;
  int rc = real->pMethods->xRead(real, *bytes, (int)*captured, offset);
  if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) {
    free(*bytes);
    *bytes = NULL;
    return rc;
  }
  return SQLITE_OK;
}

// MARK: - File methods

static int sim_close(sqlite3_file *file) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xClose(f->real);
}

static int sim_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int sim_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
  sim_file *f = (sim_file *)file;
  if (!f->track) return f->real->pMethods->xWrite(f->real, buffer, amount, offset);
  crashsim *sim = f->sim;
  pthread_mutex_lock(&sim->lock);
  if (!take_event(sim)) {
    pthread_mutex_unlock(&sim->lock);
    return SQLITE_IOERR_WRITE;
  }
  sqlite3_int64 size = 0;
  int rc = f->real->pMethods->xFileSize(f->real, &size);
  sim_op op = {OP_WRITE, offset, amount, size, NULL, 0};
  if (rc == SQLITE_OK) rc = capture(f->real, offset, amount, size, &op.old_bytes, &op.old_length);
  if (rc == SQLITE_OK) rc = f->real->pMethods->xWrite(f->real, buffer, amount, offset);
  if (rc == SQLITE_OK) rc = append_op(f->track, op);
  else free(op.old_bytes);
  pthread_mutex_unlock(&sim->lock);
  return rc;
}

static int sim_truncate(sqlite3_file *file, sqlite3_int64 size) {
  sim_file *f = (sim_file *)file;
  if (!f->track) return f->real->pMethods->xTruncate(f->real, size);
  crashsim *sim = f->sim;
  pthread_mutex_lock(&sim->lock);
  if (!take_event(sim)) {
    pthread_mutex_unlock(&sim->lock);
    return SQLITE_IOERR_TRUNCATE;
  }
  sqlite3_int64 old = 0;
  int rc = f->real->pMethods->xFileSize(f->real, &old);
  sim_op op = {OP_TRUNCATE, size, 0, old, NULL, 0};
  if (rc == SQLITE_OK && size < old) rc = capture(f->real, size, old - size, old, &op.old_bytes, &op.old_length);
  if (rc == SQLITE_OK) rc = f->real->pMethods->xTruncate(f->real, size);
  if (rc == SQLITE_OK) rc = append_op(f->track, op);
  else free(op.old_bytes);
  pthread_mutex_unlock(&sim->lock);
  return rc;
}

/// A sync makes the file's changes durable: they leave the undo log. The real fsync is skipped (the simulation
/// decides what survives, not this machine's disk), which keeps hundreds of cuts fast.
static int sim_sync(sqlite3_file *file, int flags) {
  sim_file *f = (sim_file *)file;
  if (!f->track) return f->real->pMethods->xSync(f->real, flags);
  crashsim *sim = f->sim;
  pthread_mutex_lock(&sim->lock);
  int alive = take_event(sim);
  if (alive) {
    free_ops(f->track);
    sim->stats.syncs++;
  }
  pthread_mutex_unlock(&sim->lock);
  return alive ? SQLITE_OK : SQLITE_IOERR_FSYNC;
}

static int sim_file_size(sqlite3_file *file, sqlite3_int64 *size) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xFileSize(f->real, size);
}

static int sim_lock(sqlite3_file *file, int level) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xLock(f->real, level);
}

static int sim_unlock(sqlite3_file *file, int level) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xUnlock(f->real, level);
}

static int sim_check_reserved_lock(sqlite3_file *file, int *result) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xCheckReservedLock(f->real, result);
}

static int sim_file_control(sqlite3_file *file, int op, void *argument) {
  sim_file *f = (sim_file *)file;
  // A size hint may grow the file behind the undo log's back: decline it (it is only a hint).
  if (op == SQLITE_FCNTL_SIZE_HINT) return SQLITE_NOTFOUND;
  return f->real->pMethods->xFileControl(f->real, op, argument);
}

static int sim_sector_size(sqlite3_file *file) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xSectorSize(f->real);
}

static int sim_device_characteristics(sqlite3_file *file) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xDeviceCharacteristics(f->real);
}

static int sim_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **memory) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xShmMap(f->real, page, size, extend, memory);
}

static int sim_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xShmLock(f->real, offset, count, flags);
}

static void sim_shm_barrier(sqlite3_file *file) {
  sim_file *f = (sim_file *)file;
  f->real->pMethods->xShmBarrier(f->real);
}

static int sim_shm_unmap(sqlite3_file *file, int delete_flag) {
  sim_file *f = (sim_file *)file;
  return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}

// Version 2: shared memory (WAL) but no memory-mapped reads, so every page read goes through xRead.
static const sqlite3_io_methods sim_io_methods = {
  2, sim_close, sim_read, sim_write, sim_truncate, sim_sync, sim_file_size, sim_lock, sim_unlock,
  sim_check_reserved_lock, sim_file_control, sim_sector_size, sim_device_characteristics, sim_shm_map,
  sim_shm_lock, sim_shm_barrier, sim_shm_unmap, NULL, NULL,
};

// MARK: - VFS methods

static int sim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
  crashsim *sim = (crashsim *)vfs;
  sim_file *f = (sim_file *)file;
  f->sim = sim;
  f->track = NULL;
  f->real = (sqlite3_file *)&f[1];
  f->base.pMethods = NULL;
  int rc = sim->real->xOpen(sim->real, name, f->real, flags, out_flags);
  if (f->real->pMethods == NULL) return rc;
  f->base.pMethods = &sim->methods;
  if (rc == SQLITE_OK && name && !(flags & SQLITE_OPEN_DELETEONCLOSE)) {
    pthread_mutex_lock(&sim->lock);
    f->track = track_for(sim, name);
    pthread_mutex_unlock(&sim->lock);
    if (!f->track) rc = SQLITE_NOMEM;
  }
  return rc;
}

static int sim_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
  crashsim *sim = (crashsim *)vfs;
  pthread_mutex_lock(&sim->lock);
  if (sim->crashed) {
    pthread_mutex_unlock(&sim->lock);
    return SQLITE_IOERR_DELETE;
  }
  for (sim_track *track = sim->tracks; track; track = track->next) {
    if (strcmp(track->path, name) == 0) free_ops(track);
  }
  pthread_mutex_unlock(&sim->lock);
  return sim->real->xDelete(sim->real, name, sync_dir);
}

static int sim_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xAccess(sim->real, name, flags, result);
}

static int sim_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xFullPathname(sim->real, name, size, out);
}

static void *sim_dl_open(sqlite3_vfs *vfs, const char *path) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xDlOpen(sim->real, path);
}

static void sim_dl_error(sqlite3_vfs *vfs, int size, char *message) {
  crashsim *sim = (crashsim *)vfs;
  sim->real->xDlError(sim->real, size, message);
}

static void (*sim_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xDlSym(sim->real, handle, symbol);
}

static void sim_dl_close(sqlite3_vfs *vfs, void *handle) {
  crashsim *sim = (crashsim *)vfs;
  sim->real->xDlClose(sim->real, handle);
}

static int sim_randomness(sqlite3_vfs *vfs, int size, char *out) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xRandomness(sim->real, size, out);
}

static int sim_sleep(sqlite3_vfs *vfs, int microseconds) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xSleep(sim->real, microseconds);
}

static int sim_current_time(sqlite3_vfs *vfs, double *now) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xCurrentTime(sim->real, now);
}

static int sim_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xGetLastError ? sim->real->xGetLastError(sim->real, size, out) : 0;
}

static int sim_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
  crashsim *sim = (crashsim *)vfs;
  return sim->real->xCurrentTimeInt64(sim->real, now);
}

// MARK: - Public

crashsim *crashsim_create(const char *name, int shared_memory) {
  sqlite3_vfs *real = sqlite3_vfs_find(NULL);
  if (!real || real->iVersion < 2) return NULL;
  crashsim *sim = calloc(1, sizeof(crashsim));
  if (!sim) return NULL;
  sim->name = strdup(name);
  pthread_mutex_init(&sim->lock, NULL);
  sim->real = real;
  sim->methods = sim_io_methods;
  if (!shared_memory) {
    sim->methods.iVersion = 1;
    sim->methods.xShmMap = NULL;
    sim->methods.xShmLock = NULL;
    sim->methods.xShmBarrier = NULL;
    sim->methods.xShmUnmap = NULL;
  }
  sqlite3_vfs *base = &sim->base;
  base->iVersion = 2;
  base->szOsFile = (int)sizeof(sim_file) + real->szOsFile;
  base->mxPathname = real->mxPathname;
  base->zName = sim->name;
  base->xOpen = sim_open;
  base->xDelete = sim_delete;
  base->xAccess = sim_access;
  base->xFullPathname = sim_full_pathname;
  base->xDlOpen = sim_dl_open;
  base->xDlError = sim_dl_error;
  base->xDlSym = sim_dl_sym;
  base->xDlClose = sim_dl_close;
  base->xRandomness = sim_randomness;
  base->xSleep = sim_sleep;
  base->xCurrentTime = sim_current_time;
  base->xGetLastError = sim_get_last_error;
  base->xCurrentTimeInt64 = sim_current_time_int64;
  if (!sim->name || sqlite3_vfs_register(base, 0) != SQLITE_OK) {
    free(sim->name);
    free(sim);
    return NULL;
  }
  return sim;
}

void crashsim_arm(crashsim *sim, int64_t events) {
  pthread_mutex_lock(&sim->lock);
  sim->armed = events > 0;
  sim->remaining = events;
  pthread_mutex_unlock(&sim->lock);
}

int crashsim_crashed(const crashsim *sim) {
  crashsim *mutable = (crashsim *)sim;
  pthread_mutex_lock(&mutable->lock);
  int crashed = mutable->crashed;
  pthread_mutex_unlock(&mutable->lock);
  return crashed;
}

crashsim_stats crashsim_get_stats(const crashsim *sim) {
  crashsim *mutable = (crashsim *)sim;
  pthread_mutex_lock(&mutable->lock);
  crashsim_stats stats = mutable->stats;
  pthread_mutex_unlock(&mutable->lock);
  return stats;
}

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int write_all(int fd, const unsigned char *bytes, int64_t length, int64_t offset) {
  while (length > 0) {
    ssize_t n = pwrite(fd, bytes, (size_t)length, (off_t)offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    bytes += n;
    length -= n;
    offset += n;
  }
  return 0;
}

/// Undoes `op`, keeping the first `kept` bytes of a write (0: all undone). Returns the bytes restored, or -1.
static int64_t undo(int fd, const sim_op *op, int64_t kept) {
  if (op->kind == OP_TRUNCATE) {
    if (op->old_length > 0 && write_all(fd, op->old_bytes, op->old_length, op->offset) != 0) return -1;
    if (op->offset > op->old_size && ftruncate(fd, (off_t)op->old_size) != 0) return -1;
    return op->old_length;
  }
  int64_t restored = 0;
  if (op->old_length > kept) {
    restored = op->old_length - kept;
    if (write_all(fd, op->old_bytes + kept, restored, op->offset + kept) != 0) return -1;
  }
  int64_t end = op->offset + op->length;
  if (end > op->old_size) {
    int64_t size = op->offset + kept > op->old_size ? op->offset + kept : op->old_size;
    if (ftruncate(fd, (off_t)size) != 0) return -1;
  }
  return restored;
}

int crashsim_reboot(crashsim *sim, int mode, uint64_t seed) {
  uint64_t state = seed;
  int changed = 0;
  pthread_mutex_lock(&sim->lock);
  for (sim_track *track = sim->tracks; track; track = track->next) {
    if (track->count == 0) continue;
    int fd = open(track->path, O_RDWR);
    if (fd < 0) {
      free_ops(track);
      if (errno == ENOENT) continue;
      changed = -1;
      break;
    }
    // Keep ops [0, keep) whole; op `keep` (torn mode) survives up to a sector boundary; the rest is undone.
    int keep = mode == CRASHSIM_TORN_PREFIX ? (int)(next_random(&state) % (uint64_t)(track->count + 1)) : 0;
    int failed = 0;
    for (int i = track->count - 1; i >= keep && !failed; i--) {
      const sim_op *op = &track->ops[i];
      int64_t kept = 0;
      if (i == keep && mode == CRASHSIM_TORN_PREFIX && op->kind == OP_WRITE && op->length > 0) {
        int64_t cut = op->offset + (int64_t)(next_random(&state) % (uint64_t)(op->length + 1));
        cut &= ~(int64_t)511;
        kept = cut > op->offset ? cut - op->offset : 0;
      } else if (i == keep && mode == CRASHSIM_TORN_PREFIX && op->kind == OP_TRUNCATE && (next_random(&state) & 1)) {
        continue;
      }
      int64_t restored = undo(fd, op, kept);
      if (restored < 0) failed = 1;
      else {
        sim->stats.restored_bytes += restored;
        sim->stats.undone_operations++;
      }
    }
    close(fd);
    free_ops(track);
    if (failed) {
      changed = -1;
      break;
    }
    changed++;
  }
  sim->crashed = 0;
  sim->armed = 0;
  pthread_mutex_unlock(&sim->lock);
  return changed;
}
