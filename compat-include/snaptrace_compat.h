/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snaptrace's one compat header: differences between the kernels we build
 * against (Debian 6.1 and 6.12), so the .c files carry no version tests.
 */
#ifndef _SNAPTRACE_COMPAT_H
#define _SNAPTRACE_COMPAT_H

/*
 * <linux/unaligned.h> is new in Linux 6.12, which dropped
 * <asm/unaligned.h>. Kbuild tells which one the tree has (sparse 0.6.4
 * does not understand __has_include()).
 */
#ifdef SNAPTRACE_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* _SNAPTRACE_COMPAT_H */
