// Tells the two libgpiod headers apart. libgpiod 1.x's <gpiod.h> defines the line-bulk macros (and GPIOD_API);
// 2.x's has no bulk API and keeps GPIOD_API in its private internal.h.
#ifndef STRESSMON_GPIOD_BACKEND_H
#define STRESSMON_GPIOD_BACKEND_H
#include <gpiod.h>
#if defined(GPIOD_LINE_BULK_MAX_LINES)
#define STRESSMON_GPIOD_API 1
#else
#define STRESSMON_GPIOD_API 2
#endif
#endif
