/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/fs_struct.h>: since Linux 7.x kernel threads start rooted
 * in an empty filesystem (nullfs), and a path lookup from one, such as a
 * KUnit case's filp_open(), must borrow PID 1's root and working directory
 * with scoped_with_init_fs(). Before, kernel threads shared them already:
 * the scope is a plain block there (Kbuild probes the kernel's header).
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_FS_STRUCT_H
#define _SNAPTRACE_COMPAT_LINUX_FS_STRUCT_H

#include_next <linux/fs_struct.h>

#ifndef SNAPTRACE_HAVE_SCOPED_WITH_INIT_FS
#define scoped_with_init_fs()	\
	for (bool __st_init_fs = true; __st_init_fs; __st_init_fs = false)
#endif

#endif /* _SNAPTRACE_COMPAT_LINUX_FS_STRUCT_H */
