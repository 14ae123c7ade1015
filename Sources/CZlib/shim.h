// The system zlib (Debian: zlib1g-dev), the same library compress-nio links for the sync client's gzip bodies.
#include <zlib.h>
