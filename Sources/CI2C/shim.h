// i2c-dev ioctls (I2C_SLAVE, I2C_RDWR) and libi2c's SMBus helpers.
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
