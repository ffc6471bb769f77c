// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace: module init and exit.
 *
 * Init sets things up in order and, if a step fails, undoes the steps before
 * it in reverse order, so a failed insmod leaves nothing behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include <snaptrace/snaptrace.h>
#include "internal.h"
#include "rproc.h"
#include "rproc_follow.h"

static unsigned int buffer_size_kb = 1024;
module_param(buffer_size_kb, uint, 0444);
MODULE_PARM_DESC(buffer_size_kb,
		 "Ring buffer size per CPU in KiB, rounded up to a power-of-two number of pages (default 1024, max 262144)");

static bool overwrite = true;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite,
		 "1: overwrite the oldest records when full (flight recorder, default); 0: drop new records when full");

static unsigned int remotes = 1;
module_param(remotes, uint, 0444);
MODULE_PARM_DESC(remotes, "Number of simulated remote processors (0..8, default 1)");

static char *layout[SNAPTRACE_RPROC_MAX];
static int nr_layout;
module_param_array(layout, charp, &nr_layout, 0444);
MODULE_PARM_DESC(layout,
		 "Memory of each remote: default, stm32mp157, zynqmp-r5, or name:da:size[+name:da:size...] (comma between remotes)");

static char *instances[SNAPTRACE_INSTANCES_PARAM_MAX];
static int nr_instances;
module_param_array(instances, charp, &nr_instances, 0444);
MODULE_PARM_DESC(instances,
		 "Named instances to create at load, comma-separated (as ftrace's trace_instance=); each gets instances/NAME/");

static char *follow = "all";
module_param(follow, charp, 0444);
MODULE_PARM_DESC(follow,
		 "Upstream remote processors to follow (kernels with CONFIG_REMOTEPROC): all (default), none, or names, comma-separated, each an rproc's name or remoteprocN");

static struct dentry *snaptrace_root;
static struct snaptrace_rproc *snaptrace_rprocs[SNAPTRACE_RPROC_MAX];
static struct dentry *snaptrace_rproc_dir;

/**
 * snaptrace_rproc_debugfs_dir() - snaptrace's remoteproc debugfs directory
 *
 * Where the simulated remotes, the ivshmem ones and the followed upstream
 * ones have their directories.
 *
 * Context: any, once module init created it.
 * Return: the directory, NULL before module init created it.
 */
struct dentry *snaptrace_rproc_debugfs_dir(void)
{
	return snaptrace_rproc_dir;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_rproc_debugfs_dir);

static void snaptrace_rprocs_destroy(void)
{
	int i;

	for (i = 0; i < SNAPTRACE_RPROC_MAX; i++) {
		snaptrace_rproc_destroy(snaptrace_rprocs[i]);
		snaptrace_rprocs[i] = NULL;
	}
}

static int __init snaptrace_rprocs_create(struct dentry *root)
{
	struct dentry *dir;
	int i, ret;

	dir = debugfs_create_dir("remoteproc", root);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	snaptrace_rproc_dir = dir;
	for (i = 0; i < remotes; i++) {
		struct snaptrace_rproc *rproc;

		rproc = snaptrace_rproc_create(i, i < nr_layout ? layout[i] : "default");
		if (IS_ERR(rproc))
			return PTR_ERR(rproc);
		snaptrace_rprocs[i] = rproc;
		ret = snaptrace_rproc_debugfs_create(rproc, dir);
		if (ret)
			return ret;
	}
	return 0;
}

static int __init snaptrace_init(void)
{
	int ret, i;

	if (remotes > SNAPTRACE_RPROC_MAX || nr_layout > remotes) {
		pr_err("remotes=%u layout has %d entries: want remotes <= %d and one layout per remote at most\n",
		       remotes, nr_layout, SNAPTRACE_RPROC_MAX);
		return -EINVAL;
	}
	if (buffer_size_kb == 0 || buffer_size_kb > SNAPTRACE_MAX_SIZE >> 10) {
		pr_err("buffer_size_kb=%u: must be 1..%lu\n", buffer_size_kb,
		       SNAPTRACE_MAX_SIZE >> 10);
		return -EINVAL;
	}

	snaptrace_root = snaptrace_debugfs_create(SNAPTRACE_DEBUGFS_NAME);
	if (IS_ERR(snaptrace_root)) {
		ret = PTR_ERR(snaptrace_root);
		goto fail;
	}

	ret = snaptrace_error_log_create(snaptrace_root);
	if (ret)
		goto remove_root;

	ret = snaptrace_instances_init(snaptrace_root,
				       (size_t)buffer_size_kb << 10,
				       overwrite ? SNAPTRACE_OVERWRITE :
				       SNAPTRACE_STOP_WHEN_FULL);
	if (ret)
		goto free_instances;

	/* Held until unload; snaptrace_instances_exit() frees them. */
	for (i = 0; i < nr_instances; i++) {
		struct snaptrace_buffer *buf = snaptrace_get_by_name(instances[i], 0);

		if (IS_ERR(buf)) {
			ret = PTR_ERR(buf);
			pr_err("instances=: cannot create %s: %pe\n", instances[i], ERR_PTR(ret));
			goto free_instances;
		}
	}

	/* The previous boot's capture, and this boot's region. */
	ret = snaptrace_persist_init(snaptrace_root);
	if (ret)
		goto free_instances;

	ret = snaptrace_rprocs_create(snaptrace_root);
	if (ret) {
		pr_err("cannot create the simulated remotes: %pe\n", ERR_PTR(ret));
		goto destroy_rprocs;
	}

	/* Real remotes sharing memory over ivshmem, after the simulated ones. */
	ret = snaptrace_ivshmem_init(snaptrace_rproc_dir, remotes);
	if (ret) {
		pr_err("cannot set up the ivshmem remotes: %pe\n", ERR_PTR(ret));
		goto destroy_rprocs;
	}

	/* Upstream's remote processors, present and to come. */
	ret = snaptrace_follow_start(follow);
	if (ret)
		goto exit_ivshmem;

	/* Last: nothing may fail after the region is armed over its capture. */
	snaptrace_persist_start();
	pr_info("version %s loaded\n", SNAPTRACE_VERSION);
	return 0;

exit_ivshmem:
	snaptrace_ivshmem_exit();
destroy_rprocs:
	snaptrace_rprocs_destroy();
	snaptrace_persist_exit();
free_instances:
	snaptrace_debugfs_destroy(snaptrace_root);
	snaptrace_instances_exit();
	goto fail;
remove_root:
	snaptrace_debugfs_destroy(snaptrace_root);
fail:
	/* Most steps fail silently (-ENOMEM): say that the load did. */
	pr_err("not loaded: %pe\n", ERR_PTR(ret));
	return ret;
}

static void __exit snaptrace_exit(void)
{
	snaptrace_follow_stop();
	snaptrace_ivshmem_exit();
	snaptrace_rprocs_destroy();
	snaptrace_persist_exit();
	snaptrace_debugfs_destroy(snaptrace_root);
	snaptrace_instances_exit();
	pr_info("unloaded\n");
}

module_init(snaptrace_init);
module_exit(snaptrace_exit);

MODULE_DESCRIPTION("Snapshot ring buffer and remoteproc-style trace capture");
MODULE_AUTHOR("The snaptrace developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SNAPTRACE_VERSION);
