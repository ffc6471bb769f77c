/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shadows <linux/remoteproc.h>: rproc->deleting (set by rproc_del() before
 * it shuts the remote down) came with the fix that keeps a crash from being
 * handled after rproc_del(), in 6.x and the stable kernels since; vendor
 * kernels of older stable releases lack it. snaptrace_rproc_deleting()
 * reads it where it exists (Kbuild probes the kernel's header) and is
 * false elsewhere, where rproc_del() does not force the shutdown either.
 */
#ifndef _SNAPTRACE_COMPAT_LINUX_REMOTEPROC_H
#define _SNAPTRACE_COMPAT_LINUX_REMOTEPROC_H

#include_next <linux/remoteproc.h>

static inline bool snaptrace_rproc_deleting(struct rproc *rproc)
{
#ifdef SNAPTRACE_HAVE_RPROC_DELETING
	return READ_ONCE(rproc->deleting);
#else
	return false;
#endif
}

#endif /* _SNAPTRACE_COMPAT_LINUX_REMOTEPROC_H */
