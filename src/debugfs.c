// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace debugfs: the module's directory and its files.
 *
 * Every file is root-only (0400, 0600 or 0200). debugfs gives directories a
 * fixed mode of 0755, so the directory listing is visible to whoever can
 * reach the debugfs mount (root only, on a default mount); the contents are
 * not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/seq_file.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"

static int version_show(struct seq_file *m, void *unused)
{
	seq_puts(m, SNAPTRACE_VERSION "\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

/**
 * snaptrace_debugfs_create() - create a snaptrace debugfs directory
 * @name: name of the directory under the debugfs root
 *
 * Creates @name with the module's files in it. On failure nothing is left
 * behind: a directory already created is removed again.
 *
 * Context: process context, may sleep. Takes the debugfs inode locks; the
 * caller holds no locks.
 * Return: the directory's dentry, or an ERR_PTR(): -EEXIST if @name already
 * exists, -ENOMEM on allocation failure, -ENODEV if debugfs is not available.
 */
struct dentry *snaptrace_debugfs_create(const char *name)
{
	struct dentry *root, *d;

	root = debugfs_create_dir(name, NULL);
	if (IS_ERR(root)) {
		pr_err("cannot create debugfs directory %s: %pe\n",
		       name, root);
		return root;
	}

	d = debugfs_create_file("version", 0400, root, NULL, &version_fops);
	if (IS_ERR(d)) {
		pr_err("cannot create %s/version: %pe\n", name, d);
		debugfs_remove(root);
		return d;
	}

	return root;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_debugfs_create);

/**
 * snaptrace_debugfs_destroy() - remove a directory from snaptrace_debugfs_create()
 * @root: the directory; NULL or an ERR_PTR() is ignored
 *
 * Removes the directory and everything in it. Returns once no reader or
 * writer is left inside any of its files (debugfs_remove() waits for them).
 *
 * Context: process context, may sleep.
 */
void snaptrace_debugfs_destroy(struct dentry *root)
{
	debugfs_remove(root);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_debugfs_destroy);
