/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared between the files of snaptrace.ko, and with its KUnit
 * tests (exported only when CONFIG_KUNIT is set, into the
 * EXPORTED_FOR_KUNIT_TESTING namespace).
 */
#ifndef _SNAPTRACE_INTERNAL_H
#define _SNAPTRACE_INTERNAL_H

#include <linux/types.h>

struct dentry;

struct dentry *snaptrace_debugfs_create(const char *name);
void snaptrace_debugfs_destroy(struct dentry *root);

#endif /* _SNAPTRACE_INTERNAL_H */
