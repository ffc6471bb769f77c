/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following upstream's remote processors (rproc_follow.c): built when the
 * kernel has its remote processor framework (CONFIG_REMOTEPROC, built in or
 * a module); on other kernels, stubs that say once that there is nothing
 * to follow.
 */
#ifndef _SNAPTRACE_RPROC_FOLLOW_H
#define _SNAPTRACE_RPROC_FOLLOW_H

#include <linux/kconfig.h>
#include <linux/printk.h>

#if IS_ENABLED(CONFIG_REMOTEPROC)
int snaptrace_follow_start(const char *follow);
void snaptrace_follow_stop(void);
#else
/*
 * Module init calls it once; main.c's pr_fmt() puts "snaptrace: " before
 * the message.
 */
static inline int snaptrace_follow_start(const char *follow)
{
	pr_info("no remote processor framework (CONFIG_REMOTEPROC) in this kernel: no remotes to follow\n");
	return 0;
}

static inline void snaptrace_follow_stop(void)
{
}
#endif

#endif /* _SNAPTRACE_RPROC_FOLLOW_H */
