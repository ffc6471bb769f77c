/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/device/class.h>: Linux 6.4 dropped the second argument,
 * the interface, of struct class_interface's add_dev() and remove_dev()
 * (and made its class const, as a device's class is). A callback is
 * declared with SNAPTRACE_CLASS_INTF_ARGS as its parameters, which name
 * the device "dev" on every kernel. Kbuild probes the kernel's header for
 * the old form.
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_DEVICE_CLASS_H
#define _SNAPTRACE_COMPAT_LINUX_DEVICE_CLASS_H

#include_next <linux/device/class.h>

#ifdef SNAPTRACE_HAVE_CLASS_INTF_ARG
#define SNAPTRACE_CLASS_INTF_ARGS	struct device *dev, struct class_interface *intf
#else
#define SNAPTRACE_CLASS_INTF_ARGS	struct device *dev
#endif

#endif /* _SNAPTRACE_COMPAT_LINUX_DEVICE_CLASS_H */
