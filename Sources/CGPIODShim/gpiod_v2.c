// The libgpiod 2.x half of CGPIODShim.h (Debian 13 and the Raspberry Pi OS built on it; scripts/libgpiod2 here).
// v2 has no line objects: a request (gpiod_line_request) owns its lines, and settings travel in configs.
// Compiled only against a 2.x header.
#include "backend.h"
#if STRESSMON_GPIOD_API == 2
#include "CGPIODShim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct stressmon_gpio_chip {
  struct gpiod_chip *chip;
  char label[64];
  char name[64];
  unsigned int num_lines;
};

struct stressmon_gpio_request {
  struct gpiod_line_request *request;
  unsigned int offset;
};

int stressmon_gpiod_api(void) { return 2; }

const char *stressmon_gpiod_version(void) { return gpiod_api_version(); }

static void copy_text(char *to, size_t size, const char *from) {
  if (!to || size == 0) return;
  if (!from) from = "";
  strncpy(to, from, size - 1);
  to[size - 1] = '\0';
}

stressmon_gpio_chip *stressmon_gpio_chip_open(const char *path) {
  struct gpiod_chip *chip = gpiod_chip_open(path);
  if (!chip) return NULL;
  struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
  if (!info) {
    int saved = errno;
    gpiod_chip_close(chip);
    errno = saved;
    return NULL;
  }
  stressmon_gpio_chip *wrapper = calloc(1, sizeof *wrapper);
  if (!wrapper) {
    gpiod_chip_info_free(info);
    gpiod_chip_close(chip);
    errno = ENOMEM;
    return NULL;
  }
  wrapper->chip = chip;
  copy_text(wrapper->label, sizeof wrapper->label, gpiod_chip_info_get_label(info));
  copy_text(wrapper->name, sizeof wrapper->name, gpiod_chip_info_get_name(info));
  wrapper->num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
  gpiod_chip_info_free(info);
  return wrapper;
}

void stressmon_gpio_chip_close(stressmon_gpio_chip *chip) {
  if (!chip) return;
  gpiod_chip_close(chip->chip);
  free(chip);
}

const char *stressmon_gpio_chip_label(stressmon_gpio_chip *chip) { return chip->label; }

const char *stressmon_gpio_chip_name(stressmon_gpio_chip *chip) { return chip->name; }

unsigned int stressmon_gpio_chip_num_lines(stressmon_gpio_chip *chip) { return chip->num_lines; }

int stressmon_gpio_chip_find_line(stressmon_gpio_chip *chip, const char *name) {
  errno = 0;
  int offset = gpiod_chip_get_line_offset_from_name(chip->chip, name);
  if (offset < 0) return -(errno ? errno : ENOENT);
  return offset;
}

int stressmon_gpio_line_info(stressmon_gpio_chip *chip, unsigned int offset, char *name, size_t name_size,
                             char *consumer, size_t consumer_size, bool *used) {
  if (offset >= chip->num_lines) return -EINVAL;
  struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
  if (!info) return -(errno ? errno : EIO);
  copy_text(name, name_size, gpiod_line_info_get_name(info));
  copy_text(consumer, consumer_size, gpiod_line_info_get_consumer(info));
  if (used) *used = gpiod_line_info_is_used(info);
  gpiod_line_info_free(info);
  return 0;
}

stressmon_gpio_request *stressmon_gpio_request_line(stressmon_gpio_chip *chip, unsigned int offset,
                                                    const char *consumer, bool output, bool initial,
                                                    bool active_low, enum stressmon_gpio_bias bias) {
  if (offset >= chip->num_lines) {
    errno = EINVAL;
    return NULL;
  }
  stressmon_gpio_request *wrapper = NULL;
  struct gpiod_line_request *request = NULL;
  struct gpiod_line_settings *settings = gpiod_line_settings_new();
  struct gpiod_line_config *line_config = gpiod_line_config_new();
  struct gpiod_request_config *request_config = gpiod_request_config_new();
  int saved = ENOMEM;
  if (!settings || !line_config || !request_config) goto done;

  if (gpiod_line_settings_set_direction(settings, output ? GPIOD_LINE_DIRECTION_OUTPUT
                                                         : GPIOD_LINE_DIRECTION_INPUT) < 0) goto failed;
  gpiod_line_settings_set_active_low(settings, active_low);
  if (output) {
    if (gpiod_line_settings_set_output_value(settings, initial ? GPIOD_LINE_VALUE_ACTIVE
                                                               : GPIOD_LINE_VALUE_INACTIVE) < 0) goto failed;
  } else {
    enum gpiod_line_bias value = GPIOD_LINE_BIAS_AS_IS;
    switch (bias) {
    case STRESSMON_GPIO_BIAS_PULL_DOWN: value = GPIOD_LINE_BIAS_PULL_DOWN; break;
    case STRESSMON_GPIO_BIAS_PULL_UP: value = GPIOD_LINE_BIAS_PULL_UP; break;
    case STRESSMON_GPIO_BIAS_DISABLED: value = GPIOD_LINE_BIAS_DISABLED; break;
    case STRESSMON_GPIO_BIAS_AS_IS: break;
    }
    if (gpiod_line_settings_set_bias(settings, value) < 0) goto failed;
  }
  if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) < 0) goto failed;
  gpiod_request_config_set_consumer(request_config, consumer);
  request = gpiod_chip_request_lines(chip->chip, request_config, line_config);
  if (!request) goto failed;
  wrapper = calloc(1, sizeof *wrapper);
  if (!wrapper) {
    gpiod_line_request_release(request);
    saved = ENOMEM;
    goto done;
  }
  wrapper->request = request;
  wrapper->offset = offset;
  saved = 0;
  goto done;

failed:
  saved = errno ? errno : EIO;
done:
  gpiod_request_config_free(request_config);
  gpiod_line_config_free(line_config);
  gpiod_line_settings_free(settings);
  if (saved) errno = saved;
  return wrapper;
}

int stressmon_gpio_set(stressmon_gpio_request *request, bool active) {
  int status = gpiod_line_request_set_value(request->request, request->offset,
                                            active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
  return status < 0 ? -(errno ? errno : EIO) : 0;
}

int stressmon_gpio_get(stressmon_gpio_request *request) {
  enum gpiod_line_value value = gpiod_line_request_get_value(request->request, request->offset);
  if (value == GPIOD_LINE_VALUE_ERROR) return -(errno ? errno : EIO);
  return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

void stressmon_gpio_release(stressmon_gpio_request *request) {
  if (!request) return;
  gpiod_line_request_release(request->request);
  free(request);
}
#endif
