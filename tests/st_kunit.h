/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the snaptrace KUnit suites. */
#ifndef _SNAPTRACE_ST_KUNIT_H
#define _SNAPTRACE_ST_KUNIT_H

#include <kunit/test.h>

/* Where the guest mounts debugfs (scripts/guest/init). */
#define ST_DEBUGFS "/sys/kernel/debug"

ssize_t st_read_file(struct kunit *test, const char *path, char *buf,
		     size_t len);
void st_skip_unless_debugfs_mounted(struct kunit *test);

#endif /* _SNAPTRACE_ST_KUNIT_H */
