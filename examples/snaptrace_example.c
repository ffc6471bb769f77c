// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace_example: a module of its own that uses snaptrace.ko's API.
 *
 * At load it takes a named instance (instances/example/ in snaptrace's
 * debugfs directory), allocates its snapshot spare (this sleeps, so it is
 * done here), records two lines, freezes them in a snapshot (which never
 * sleeps or allocates, so it could be done from an interrupt handler or an
 * NMI) and records a third. After insmod:
 *
 *   cat /sys/kernel/debug/snaptrace/instances/example/trace     (3 lines)
 *   cat /sys/kernel/debug/snaptrace/instances/example/snapshot  (2 lines)
 *
 * Build it as Documentation/api.rst says: against the kernel's headers,
 * with snaptrace's include/ and snaptrace.ko's Module.symvers.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <snaptrace/snaptrace.h>

static struct snaptrace_buffer *buf;

static void example_log(const char *msg)
{
	/* Any context, NMI included: a text payload is shown as text. */
	snaptrace_write(buf, msg, strlen(msg));
}

static int __init example_init(void)
{
	int ret;

	buf = snaptrace_get_by_name("example", SZ_64K);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	ret = snaptrace_alloc_snapshot(buf);	/* sleeps: do it now */
	if (ret) {
		snaptrace_put(buf);
		return ret;
	}

	example_log("example: before the snapshot, 1");
	example_log("example: before the snapshot, 2");
	ret = snaptrace_snapshot(buf);		/* never sleeps or allocates */
	example_log("example: after the snapshot");
	pr_info("snaptrace_example: snapshot returned %d\n", ret);
	return 0;
}

static void __exit example_exit(void)
{
	snaptrace_put(buf);	/* the last reference removes instances/example/ */
}

module_init(example_init);
module_exit(example_exit);
MODULE_DESCRIPTION("A module using snaptrace's exported API");
MODULE_LICENSE("GPL");
