// libgpiod v1 API (Debian 12: 1.6.3). A v2 backend would sit beside this behind the GPIOLine protocol.
#include <gpiod.h>
