// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: module init and exit.
 *
 * Init sets things up in order and, if a step fails, undoes the steps before
 * it in reverse order, so a failed insmod leaves nothing behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

static struct dentry *snaptrace_root;

static int __init snaptrace_init(void)
{
	snaptrace_root = snaptrace_debugfs_create(SNAPTRACE_DEBUGFS_NAME);
	if (IS_ERR(snaptrace_root))
		return PTR_ERR(snaptrace_root);

	pr_info("version %s loaded\n", SNAPTRACE_VERSION);
	return 0;
}

static void __exit snaptrace_exit(void)
{
	snaptrace_debugfs_destroy(snaptrace_root);
	pr_info("unloaded\n");
}

module_init(snaptrace_init);
module_exit(snaptrace_exit);

MODULE_DESCRIPTION("Snapshot ring buffer and remoteproc-style trace capture");
MODULE_AUTHOR("The snaptrace developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SNAPTRACE_VERSION);
