// One small GPIO interface over libgpiod 1.x or 2.x, chosen when this target is compiled: whichever <gpiod.h>
// pkg-config's libgpiod points at (Debian 12: 1.6; Debian 13 and its Raspberry Pi OS: 2.x; scripts/libgpiod2
// builds 2.x into a scratch prefix). The Swift side (LinuxIO.GPIODChip) sees only these functions, so both
// backends share one Swift implementation: finding chips by label, line names, errors and their fixes.
//
// Every function maps onto one or two libgpiod calls. Errors: NULL or a negative errno; the caller owns what an
// `open`/`request` returns and gives it back with `close`/`release`. Not thread-safe: the caller serialises.
#ifndef CGPIODSHIM_H
#define CGPIODSHIM_H
#include <stdbool.h>
#include <stddef.h>

typedef struct stressmon_gpio_chip stressmon_gpio_chip;
typedef struct stressmon_gpio_request stressmon_gpio_request;

/// The libgpiod API this target was compiled against: 1 or 2.
int stressmon_gpiod_api(void);
/// The library's version string ("1.6.3", "2.3").
const char *stressmon_gpiod_version(void);

/// Opens /dev/gpiochipN (any path). NULL with errno set: ENOENT, EACCES, ENOTTY or ENODEV (not a GPIO chip).
stressmon_gpio_chip *stressmon_gpio_chip_open(const char *path);
void stressmon_gpio_chip_close(stressmon_gpio_chip *chip);
/// The chip's label ("pinctrl-bcm2711"), name ("gpiochip0") and number of lines; valid until close.
const char *stressmon_gpio_chip_label(stressmon_gpio_chip *chip);
const char *stressmon_gpio_chip_name(stressmon_gpio_chip *chip);
unsigned int stressmon_gpio_chip_num_lines(stressmon_gpio_chip *chip);

/// The offset of the line named `name`, or -ENOENT (or another -errno).
int stressmon_gpio_chip_find_line(stressmon_gpio_chip *chip, const char *name);

/// What the kernel says of one line now: its name and consumer (empty when none) and whether it is in use.
/// Returns 0 or -errno (-EINVAL for an offset beyond the chip).
int stressmon_gpio_line_info(stressmon_gpio_chip *chip, unsigned int offset, char *name, size_t name_size,
                             char *consumer, size_t consumer_size, bool *used);

enum stressmon_gpio_bias {
  STRESSMON_GPIO_BIAS_AS_IS = 0,
  STRESSMON_GPIO_BIAS_PULL_DOWN = 1,
  STRESSMON_GPIO_BIAS_PULL_UP = 2,
  STRESSMON_GPIO_BIAS_DISABLED = 3,
};

/// Requests one line for exclusive use. `output`: driven, starting at `initial` (logical: 1 = active);
/// else an input with `bias`. NULL with errno set (EBUSY: held by another consumer; EINVAL: bad offset).
stressmon_gpio_request *stressmon_gpio_request_line(stressmon_gpio_chip *chip, unsigned int offset,
                                                    const char *consumer, bool output, bool initial,
                                                    bool active_low, enum stressmon_gpio_bias bias);
/// Sets an output (logical value). 0 or -errno.
int stressmon_gpio_set(stressmon_gpio_request *request, bool active);
/// Reads the line: 0 or 1 (logical), or -errno.
int stressmon_gpio_get(stressmon_gpio_request *request);
/// Gives the line back to the kernel and frees the request.
void stressmon_gpio_release(stressmon_gpio_request *request);

#endif
