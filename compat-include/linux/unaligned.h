/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/unaligned.h>, new in Linux 6.12, which dropped
 * <asm/unaligned.h>: older kernels get the latter. Kbuild tells which one
 * the tree has (sparse 0.6.4 does not understand __has_include()).
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_UNALIGNED_H
#define _SNAPTRACE_COMPAT_LINUX_UNALIGNED_H

#ifdef SNAPTRACE_HAVE_LINUX_UNALIGNED_H
#include_next <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* _SNAPTRACE_COMPAT_LINUX_UNALIGNED_H */
