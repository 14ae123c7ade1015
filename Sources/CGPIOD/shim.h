// libgpiod's header, 1.x (Debian 12: 1.6.3) or 2.x (Debian 13 and the Raspberry Pi OS built on it;
// scripts/libgpiod2): whichever pkg-config's libgpiod points at. Only CGPIODShim includes it; Swift code sees
// CGPIODShim's functions.
#include <gpiod.h>
