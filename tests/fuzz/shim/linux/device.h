/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SNAPTRACE_FUZZ_DEVICE_H
#define _SNAPTRACE_FUZZ_DEVICE_H
#include <linux/types.h>
struct device;
/* Messages are checked for format safety by the compiler, then dropped. */
#define dev_err(dev, fmt, ...) \
	do { if (0) fprintf(stderr, fmt, ##__VA_ARGS__); } while (0)
#define dev_warn dev_err
#define dev_dbg dev_err
#endif
