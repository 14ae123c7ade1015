// What Embedded Swift and picolibc need from the platform, shared by both start-ups: the heap (picolibc's malloc
// grows its arena through sbrk; this one keeps the high-water mark the firmware reports) and Hasher's seed.
#include "firmware.h"

#include <malloc.h>

extern char __heap_start[], __heap_end[];

static char *heap_break = __heap_start;

// picolibc's malloc grows its arena through sbrk; this one keeps the high-water mark.
void *sbrk(ptrdiff_t increment) {
  if (increment < 0 || __heap_end - heap_break < increment) return (void *)-1;
  char *previous = heap_break;
  heap_break += increment;
  return previous;
}

size_t fw_heap_peak(void) { return (size_t)(heap_break - __heap_start); }

size_t fw_heap_in_use(void) { return (size_t)mallinfo().uordblks; }

// Embedded Swift seeds Hasher from arc4random_buf; the core's dictionaries only look values up, so a fixed seed
// keeps the firmware deterministic without changing any result.
void arc4random_buf(void *buffer, size_t length) {
  for (size_t i = 0; i < length; i++) ((unsigned char *)buffer)[i] = (unsigned char)i;
}
