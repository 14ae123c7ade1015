// The libgpiod 1.x half of CGPIODShim.h (Debian 12 ships 1.6.3). Compiled only against a 1.x header.
#include "backend.h"
#if STRESSMON_GPIOD_API == 1
#include "CGPIODShim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct stressmon_gpio_chip {
  struct gpiod_chip *chip;
};

struct stressmon_gpio_request {
  struct gpiod_line *line;
};

int stressmon_gpiod_api(void) { return 1; }

const char *stressmon_gpiod_version(void) { return gpiod_version_string(); }

stressmon_gpio_chip *stressmon_gpio_chip_open(const char *path) {
  struct gpiod_chip *chip = gpiod_chip_open(path);
  if (!chip) return NULL;
  stressmon_gpio_chip *wrapper = calloc(1, sizeof *wrapper);
  if (!wrapper) {
    gpiod_chip_close(chip);
    errno = ENOMEM;
    return NULL;
  }
  wrapper->chip = chip;
  return wrapper;
}

void stressmon_gpio_chip_close(stressmon_gpio_chip *chip) {
  if (!chip) return;
  gpiod_chip_close(chip->chip);
  free(chip);
}

const char *stressmon_gpio_chip_label(stressmon_gpio_chip *chip) { return gpiod_chip_label(chip->chip); }

const char *stressmon_gpio_chip_name(stressmon_gpio_chip *chip) { return gpiod_chip_name(chip->chip); }

unsigned int stressmon_gpio_chip_num_lines(stressmon_gpio_chip *chip) { return gpiod_chip_num_lines(chip->chip); }

int stressmon_gpio_chip_find_line(stressmon_gpio_chip *chip, const char *name) {
  errno = 0;
  struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
  if (!line) return -(errno ? errno : ENOENT);
  return (int)gpiod_line_offset(line);
}

static void copy_text(char *to, size_t size, const char *from) {
  if (!to || size == 0) return;
  if (!from) from = "";
  strncpy(to, from, size - 1);
  to[size - 1] = '\0';
}

int stressmon_gpio_line_info(stressmon_gpio_chip *chip, unsigned int offset, char *name, size_t name_size,
                             char *consumer, size_t consumer_size, bool *used) {
  if (offset >= gpiod_chip_num_lines(chip->chip)) return -EINVAL;
  struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
  if (!line) return -(errno ? errno : EIO);
  // The line object is cached by the chip: read the kernel's current view.
  if (gpiod_line_update(line) < 0) return -(errno ? errno : EIO);
  copy_text(name, name_size, gpiod_line_name(line));
  copy_text(consumer, consumer_size, gpiod_line_consumer(line));
  if (used) *used = gpiod_line_is_used(line);
  return 0;
}

stressmon_gpio_request *stressmon_gpio_request_line(stressmon_gpio_chip *chip, unsigned int offset,
                                                    const char *consumer, bool output, bool initial,
                                                    bool active_low, enum stressmon_gpio_bias bias) {
  if (offset >= gpiod_chip_num_lines(chip->chip)) {
    errno = EINVAL;
    return NULL;
  }
  struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
  if (!line) return NULL;
  struct gpiod_line_request_config config = {
    .consumer = consumer,
    .request_type = output ? GPIOD_LINE_REQUEST_DIRECTION_OUTPUT : GPIOD_LINE_REQUEST_DIRECTION_INPUT,
    .flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
  };
  switch (bias) {
  case STRESSMON_GPIO_BIAS_PULL_DOWN: config.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
  case STRESSMON_GPIO_BIAS_PULL_UP: config.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
  case STRESSMON_GPIO_BIAS_DISABLED: config.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
  case STRESSMON_GPIO_BIAS_AS_IS: break;
  }
  stressmon_gpio_request *request = calloc(1, sizeof *request);
  if (!request) {
    errno = ENOMEM;
    return NULL;
  }
  if (gpiod_line_request(line, &config, initial ? 1 : 0) < 0) {
    int saved = errno;
    free(request);
    errno = saved;
    return NULL;
  }
  request->line = line;
  return request;
}

int stressmon_gpio_set(stressmon_gpio_request *request, bool active) {
  return gpiod_line_set_value(request->line, active ? 1 : 0) < 0 ? -(errno ? errno : EIO) : 0;
}

int stressmon_gpio_get(stressmon_gpio_request *request) {
  int value = gpiod_line_get_value(request->line);
  return value < 0 ? -(errno ? errno : EIO) : value;
}

void stressmon_gpio_release(stressmon_gpio_request *request) {
  if (!request) return;
  gpiod_line_release(request->line);
  free(request);
}
#endif
