/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/module.h>: since Linux 6.13 MODULE_IMPORT_NS() takes the
 * namespace as a string literal, MODULE_IMPORT_NS("NS"). Before, it
 * stringified a bare name, which would turn "NS" into "\"NS\"": give older
 * kernels the new form (Kbuild probes the kernel's header).
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_MODULE_H
#define _SNAPTRACE_COMPAT_LINUX_MODULE_H

#include_next <linux/module.h>

#ifndef SNAPTRACE_HAVE_MODULE_IMPORT_NS_STRING
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

#endif /* _SNAPTRACE_COMPAT_LINUX_MODULE_H */
