/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace: a per-CPU snapshot ring buffer and a remoteproc-style trace
 * resource handler, as one loadable module.
 *
 * This is the public header for other kernel code. Every exported symbol
 * carries the snaptrace_ prefix.
 */
#ifndef _SNAPTRACE_SNAPTRACE_H
#define _SNAPTRACE_SNAPTRACE_H

/* Module version, as shown in debugfs "version" and modinfo. */
#define SNAPTRACE_VERSION "0.1.0"

/* Name of the module's debugfs directory, under the debugfs mount. */
#define SNAPTRACE_DEBUGFS_NAME "snaptrace"

#endif /* _SNAPTRACE_SNAPTRACE_H */
