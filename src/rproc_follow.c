// SPDX-License-Identifier: GPL-2.0
/*
 * snaptrace following upstream's remote processors: the traces of every
 * struct rproc that a platform driver registers with the kernel's remote
 * processor framework (drivers/remoteproc), kept across a crash, without
 * patching the kernel and with exported symbols only.
 *
 * Discovery. Upstream's rproc_class is not exported. rproc_alloc() is, and
 * sets rproc->dev.class: a throw-away rproc, allocated on a throw-away
 * root device and freed at once (rproc_free(): its remoteprocN index goes
 * back to upstream's ida), names the class, and class_interface_register()
 * on it calls add_dev() for every remote present and every one registered
 * later (device_add() in rproc_add()), and remove_dev() when one goes
 * (device_del() in rproc_del(), after its shutdown) and for every one at
 * class_interface_unregister() (rmmod). Nothing else exported finds the
 * remotes of every platform: rproc_get_by_phandle() needs a device tree
 * node, rproc_get_by_child() a child device.
 *
 * Hook. A followed remote holds a reference on its device (get_device())
 * and a sub-device of ours, added to its list under its lock (upstream
 * walks the list under rproc->lock: prepare, start, stop in reverse,
 * unprepare), removed under it when we let it go.
 *
 * prepare (rproc_start() and __rproc_attach(), process context, lock
 * held): the loaded resource table (rproc->table_ptr) is copied, checked
 * and walked with snaptrace's own parser (fw.h); each trace entry N gets
 * its keeper (trace_keeper.h), as our own remotes' traces do: debugfs
 * traceN and traceN_last, and a buffer for the next capture, of the
 * trace's size.
 *
 * stop with the remote CRASHED: the capture. Upstream calls a sub-device's
 * stop, before anything frees or reloads the remote's memory:
 * - recovery, rproc_boot_recovery(): rproc_stop(rproc, true) runs the
 *   sub-devices' stop first, then ops->stop, then the coredump,
 *   request_firmware() and rproc_start(), which reloads the segments
 *   (a trace in .bss is zeroed) - the same in 6.1, 6.12 and 7.3;
 * - recovery by attaching again (RPROC_FEAT_ATTACH_ON_RECOVERY):
 *   __rproc_detach() stops the sub-devices with crashed false, the state
 *   still CRASHED - 6.1, 6.12, 7.3;
 * - shutdown of a crashed remote, rproc_shutdown() and rproc_del() (7.3
 *   forces it whatever the power count): rproc_stop(rproc, crashed), the
 *   sub-devices first, before rproc_resource_cleanup() frees the carveouts
 *   - 6.12 and 7.3. 6.1's rproc_shutdown() refuses a crashed remote
 *   (-EINVAL): it stops, and is captured, only by a recovery.
 * rproc_start_subdevices() also calls stop(subdev, true) to unroll a
 * failed start: the state is not CRASHED then, and nothing is captured.
 * So the state, not the flag, says "crashed": the capture runs when the
 * state is RPROC_CRASHED. rproc_stop_subdevices() walks the list in
 * reverse: the vdevs, which each boot adds after us, stop before our
 * capture, the platform's own sub-devices (added before us) after it;
 * none of them frees the remote's memory. Which stop it is:
 * rproc_shutdown() dropped the last power reference (or rproc_del() is
 * deleting the remote) before it stops; a recovery keeps it.
 *
 * The capture reads the loaded table again (a firmware may fill in its
 * trace's da at run time), maps each trace with rproc_da_to_va() and hands
 * it to its keeper (snaptrace_keeper_stage_slow(), memcpy_fromio() from
 * I/O memory), whose buffer grows now only for a trace the start did not
 * see at that size (snaptrace_keeper_stage_grow()). The copies and the
 * allocations are made where no reader looks, under the remote's lock
 * only; the remote's last_lock is taken only to publish every trace of
 * the crash at once with the counts of crashes (a snapshot, a swap of
 * buffers: snaptrace_keeper_publish()). So a reader of traceN_last or
 * crashes (which takes last_lock only, so it never waits for a recovery)
 * waits for no copy, and sees the whole of one capture or the whole of
 * the next.
 *
 * traceN reads the live trace: under the remote's lock, only while it
 * runs (RPROC_RUNNING or RPROC_ATTACHED), through the table loaded then.
 * The keeper decodes both files (trace_decode.h), oldest line first, in
 * the convention trace_format says.
 *
 * Locks, outermost first: the class's mutex (add_dev, remove_dev),
 * st_follow_lock (the followed remotes), rproc->lock, a remote's
 * last_lock. Upstream calls the sub-device with rproc->lock held: its
 * callbacks take only last_lock. Files are removed (debugfs waits for
 * readers inside them, who may wait for rproc->lock) after the sub-device
 * is, without rproc->lock; never while following, so a keeper that must
 * hold a larger trace grows its buffer (snaptrace_keeper_stage_grow())
 * rather than being replaced.
 *
 * Not done: adding the captures to the remote's devcoredump with
 * rproc_coredump_add_custom_segment(). Upstream has no call to take one
 * segment back out (rproc_coredump_cleanup() drops the platform driver's
 * too), so rmmod would leave a dump function of ours, gone with the
 * module, on the remote's list until its next shutdown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/remoteproc.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "cmd.h"
#include "fw.h"
#include "rproc.h"
#include "rproc_follow.h"
#include "trace_decode.h"
#include "trace_keeper.h"

/**
 * struct st_rsc_traces - the trace entries of a table, in table order
 * @dev: where to report a bad entry
 * @n: entries seen, up to %SNAPTRACE_RPROC_MAX_TRACES
 * @t: each one's device address and length, bounded by
 *	%SNAPTRACE_RPROC_TRACE_MAX (@ok: it passed the checks)
 */
struct st_rsc_traces {
	struct device *dev;
	int n;
	struct {
		u32 da;
		u32 len;
		bool ok;
	} t[SNAPTRACE_RPROC_MAX_TRACES];
};

/**
 * struct st_follow - an upstream remote we follow
 * @node: in st_follows (st_follow_lock)
 * @rproc: the remote; its device is held (get_device())
 * @subdev: our sub-device, in the remote's list while we follow it
 * @dir: debugfs remoteproc/<name>
 * @traces: trace N's keeper, made when first seen (the remote's lock);
 *	@nr_traces of them
 * @nr_traces: entries in @traces
 * @table: a copy of the loaded table last walked, @table_sz bytes (the
 *	remote's lock)
 * @table_sz: its size
 * @table_ok: it passed the checks; @rsc holds its traces
 * @rsc: its trace entries
 * @fmt: the trace convention to decode with (&enum snaptrace_tfmt),
 *	SNAPTRACE_TFMT_AUTO unless forced; READ_ONCE()/WRITE_ONCE()
 * @failures: traces a capture could not copy (the remote's lock)
 * @last_lock: the last capture against its readers: the publication of
 *	every keeper's last capture (snaptrace_keeper_publish()) and the
 *	counts below
 * @crashes: captures made
 * @last_time_ns: ktime_get_boottime_ns() at the last capture
 * @last_after: what followed the last capture: "none", "recovery" or
 *	"shutdown"
 * @last_traces: traces the last capture copied
 * @last_bytes: bytes it copied
 */
struct st_follow {
	struct list_head node;
	struct rproc *rproc;
	struct rproc_subdev subdev;
	struct dentry *dir;
	struct snaptrace_keeper *traces[SNAPTRACE_RPROC_MAX_TRACES];
	int nr_traces;
	void *table;
	size_t table_sz;
	bool table_ok;
	struct st_rsc_traces rsc;
	int fmt;
	unsigned int failures;
	struct mutex last_lock;		/* @last of each trace, the counts */
	unsigned int crashes;
	u64 last_time_ns;
	const char *last_after;
	unsigned int last_traces;
	u64 last_bytes;
};

static DEFINE_MUTEX(st_follow_lock);	/* what follows */
static LIST_HEAD(st_follows);
static bool st_following;
static bool st_follow_all;
static char *st_follow_names;		/* the names given, or NULL */

/* ------------------------------------------------------------------ */
/* The traces of the loaded resource table                            */

static int st_collect_trace(void *priv, u32 type, void *rsc, int offset,
			    int avail)
{
	struct st_rsc_traces *c = priv;
	const struct snaptrace_fw_rsc_trace *t = rsc;

	if (type != SNAPTRACE_RSC_TRACE || c->n == SNAPTRACE_RPROC_MAX_TRACES)
		return 0;
	/*
	 * Numbered as upstream numbers its trace files; one that fails the
	 * checks keeps its number and is not read.
	 */
	c->t[c->n].ok = !snaptrace_rsc_check_trace(c->dev, t, offset, avail);
	if (c->t[c->n].ok) {
		if (get_unaligned_le32(&t->len) > SNAPTRACE_RPROC_TRACE_MAX)
			dev_warn(c->dev, "snaptrace: trace%d has %u bytes: only the first %u are kept\n",
				 c->n, get_unaligned_le32(&t->len),
				 SNAPTRACE_RPROC_TRACE_MAX);
		c->t[c->n].da = get_unaligned_le32(&t->da);
		c->t[c->n].len = min_t(u32, get_unaligned_le32(&t->len),
				       SNAPTRACE_RPROC_TRACE_MAX);
	}
	c->n++;
	return 0;
}

/*
 * The trace entries of the table the remote has loaded, read from a copy
 * (the remote may write its table meanwhile). A table the same as the one
 * walked last is not walked again: what is wrong with it was said once.
 * The remote's lock held. Returns NULL if there is no table, it is
 * malformed or we are out of memory.
 */
static const struct st_rsc_traces *st_read_traces(struct st_follow *fr)
{
	struct rproc *rproc = fr->rproc;
	size_t sz = rproc->table_sz;
	void *table;

	if (!rproc->table_ptr || !sz || sz > SNAPTRACE_RSC_TABLE_MAX)
		return NULL;
	table = kvmalloc(sz, GFP_KERNEL);
	if (!table)
		return NULL;
	memcpy(table, rproc->table_ptr, sz);
	if (fr->table && fr->table_sz == sz && !memcmp(fr->table, table, sz)) {
		kvfree(table);
		return fr->table_ok ? &fr->rsc : NULL;
	}
	kvfree(fr->table);
	fr->table = table;
	fr->table_sz = sz;
	memset(&fr->rsc, 0, sizeof(fr->rsc));
	fr->rsc.dev = &rproc->dev;
	fr->table_ok = !snaptrace_rsc_walk(&rproc->dev, table, sz,
					   st_collect_trace, &fr->rsc);
	return fr->table_ok ? &fr->rsc : NULL;
}

/* Copy @len bytes at @da of the remote's memory: lock held. */
static int st_copy_da(struct rproc *rproc, u32 da, size_t len, void *dst)
{
	bool is_iomem = false;
	void *va;

	va = rproc_da_to_va(rproc, da, len, &is_iomem);
	if (!va)
		return -EFAULT;
	if (is_iomem)
		memcpy_fromio(dst, (void __iomem __force *)va, len);
	else
		memcpy(dst, va, len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* debugfs                                                            */

/*
 * traceN: the live trace, while the remote runs, through the table loaded
 * then; nothing to show otherwise.
 */
static int st_keeper_read_live(struct snaptrace_keeper *k, void **buf,
			       u32 *len)
{
	struct st_follow *fr = k->priv;
	struct rproc *rproc = fr->rproc;
	const struct st_rsc_traces *c = NULL;
	void *copy = NULL;
	int ret;

	*buf = NULL;
	ret = mutex_lock_interruptible(&rproc->lock);
	if (ret)
		return ret;
	if (rproc->state == RPROC_RUNNING || rproc->state == RPROC_ATTACHED)
		c = st_read_traces(fr);
	if (c && k->index < c->n && c->t[k->index].ok) {
		copy = kvmalloc(c->t[k->index].len, GFP_KERNEL);
		if (!copy) {
			ret = -ENOMEM;
		} else if (st_copy_da(rproc, c->t[k->index].da,
				      c->t[k->index].len, copy)) {
			kvfree(copy);
		} else {
			*buf = copy;
			*len = c->t[k->index].len;
		}
	}
	mutex_unlock(&rproc->lock);
	return ret;
}

/* traceN_last: the last capture, against the next one. */
static int st_keeper_last_lock(struct snaptrace_keeper *k)
{
	struct st_follow *fr = k->priv;

	return mutex_lock_interruptible(&fr->last_lock);
}

static void st_keeper_last_unlock(struct snaptrace_keeper *k)
{
	struct st_follow *fr = k->priv;

	mutex_unlock(&fr->last_lock);
}

static enum snaptrace_tfmt st_keeper_format(struct snaptrace_keeper *k)
{
	struct st_follow *fr = k->priv;

	return READ_ONCE(fr->fmt);
}

static const struct snaptrace_keeper_ops st_keeper_ops = {
	.read_live = st_keeper_read_live,
	.last_lock = st_keeper_last_lock,
	.last_unlock = st_keeper_last_unlock,
	.format = st_keeper_format,
};

static int st_crashes_show(struct seq_file *m, void *unused)
{
	struct st_follow *fr = m->private;
	int ret;

	ret = mutex_lock_interruptible(&fr->last_lock);
	if (ret)
		return ret;
	seq_printf(m, "crashes: %u\n", fr->crashes);
	seq_printf(m, "last_time_ns: %llu\n", fr->last_time_ns);
	seq_printf(m, "last_after: %s\n", fr->last_after);
	seq_printf(m, "last_traces: %u\n", fr->last_traces);
	seq_printf(m, "last_bytes: %llu\n", fr->last_bytes);
	mutex_unlock(&fr->last_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(st_crashes);

/* trace_format: as ftrace's trace_clock, the one in use in brackets. */
static int st_format_show(struct seq_file *m, void *unused)
{
	struct st_follow *fr = m->private;
	int fmt = READ_ONCE(fr->fmt), i;

	for (i = 0; i < SNAPTRACE_TFMT_NR; i++)
		seq_printf(m, i == fmt ? "%s[%s]" : "%s%s", i ? " " : "",
			   snaptrace_tfmt_name(i));
	seq_putc(m, '\n');
	return 0;
}

static int st_format_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, st_format_show, inode->i_private);
}

static ssize_t st_format_write(struct file *filp, const char __user *ubuf,
			       size_t cnt, loff_t *ppos)
{
	struct st_follow *fr = ((struct seq_file *)filp->private_data)->private;
	struct snaptrace_cmd cmd;
	enum snaptrace_tfmt fmt;
	int ret;

	ret = snaptrace_cmd_get(&cmd, filp, ubuf, cnt, *ppos, 31);
	if (ret)
		return ret;
	/* "zephyr\0junk" is no name: do not parse up to the NUL only */
	ret = snaptrace_cmd_no_nul(&cmd, "a NUL byte in the name");
	if (!ret)
		ret = snaptrace_cmd_words(&cmd, 1);
	if (ret < 0)
		return ret;
	if (snaptrace_tfmt_parse(cmd.argv[0], &fmt)) {
		snaptrace_cmd_err(&cmd, 0,
				  "unknown format: want auto, plain, zephyr, libmetal or stm32cube");
		return -EINVAL;
	}
	WRITE_ONCE(fr->fmt, fmt);
	return cnt;
}

static const struct file_operations st_format_fops = {
	.owner = THIS_MODULE,
	.open = st_format_open,
	.read = seq_read,
	.write = st_format_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * remoteproc/<rproc name>, or <rproc name>@remoteprocN if that is taken
 * (by one of snaptrace's own remotes, or another rproc of that name). A
 * '/' in the name, which debugfs cannot hold, becomes '_'. Under
 * st_follow_lock. An error leaves the remote followed without files.
 */
static void st_dir_create(struct st_follow *fr, struct dentry *parent)
{
	struct rproc *rproc = fr->rproc;
	struct dentry *d;
	char *name;

	fr->dir = ERR_PTR(-ENOENT);
	if (IS_ERR_OR_NULL(parent))
		return;
	name = kstrdup(rproc->name, GFP_KERNEL);
	if (!name)
		return;
	strreplace(name, '/', '_');
	d = debugfs_lookup(name, parent);
	if (d || !*name) {
		dput(d);
		kfree(name);
		name = kasprintf(GFP_KERNEL, "%s@%s", rproc->name,
				 dev_name(&rproc->dev));
		if (!name)
			return;
		strreplace(name, '/', '_');
	}
	fr->dir = debugfs_create_dir(name, parent);
	kfree(name);
	debugfs_create_file("crashes", 0400, fr->dir, fr, &st_crashes_fops);
	debugfs_create_file("trace_format", 0600, fr->dir, fr, &st_format_fops);
}

/* ------------------------------------------------------------------ */
/* Traces and the capture, under the remote's lock                    */

/*
 * Where a panic keeps trace N's last capture: "<dir>/trace<N>_last", the
 * directory's name with what a persisted name may not hold made '_'.
 */
static void st_persist_name(struct st_follow *fr, int index, char *name,
			    size_t size)
{
	const char *dir = IS_ERR_OR_NULL(fr->dir) ? "follow" :
			  (const char *)fr->dir->d_name.name;
	int n, i;

	n = snprintf(name, size, "/trace%d_last", index);
	snprintf(name, size, "%.*s/trace%d_last", (int)(size - 1 - n), dir, index);
	for (i = 0; name[i] != '/'; i++)
		if (!isalnum(name[i]) && name[i] != '-' && name[i] != '_' &&
		    name[i] != '.')
			name[i] = '_';
	if (name[0] == '.' || name[0] == '/')
		name[0] = '_';
}

/*
 * Trace N's keeper, made (with its files) if it is new, with room for
 * @len bytes; NULL if out of memory. One made before stays as it is: the
 * caller grows it if it must. The remote's lock held.
 */
static struct snaptrace_keeper *st_keeper_get(struct st_follow *fr, int index,
					      u32 len)
{
	char pname[ST_PR_SRC_NAME];
	struct snaptrace_keeper *k;

	while (fr->nr_traces <= index) {
		st_persist_name(fr, fr->nr_traces, pname, sizeof(pname));
		k = snaptrace_keeper_create(&fr->rproc->dev, fr->nr_traces,
					    max_t(u32, len, 1), NULL, pname,
					    &st_keeper_ops, fr);
		if (IS_ERR(k))
			return NULL;
		snaptrace_keeper_files_add(k, fr->dir);
		fr->traces[fr->nr_traces++] = k;
	}
	return fr->traces[index];
}

/* Under last_lock, what each keeper staged; then each settles, without it. */
static void st_publish_grown(struct st_follow *fr)
{
	int i;

	mutex_lock(&fr->last_lock);
	for (i = 0; i < fr->nr_traces; i++)
		snaptrace_keeper_publish(fr->traces[i]);
	mutex_unlock(&fr->last_lock);
	for (i = 0; i < fr->nr_traces; i++)
		snaptrace_keeper_settle(fr->traces[i]);
}

/*
 * The remote starts (or we start following it running): get ready. A
 * keeper too small for its trace grows now, unless it holds a last
 * capture, which stays until the next crash (the capture grows it then).
 * The new buffers are made without last_lock, and swapped in under it.
 */
static void st_follow_prepare(struct st_follow *fr)
{
	const struct st_rsc_traces *c = st_read_traces(fr);
	struct snaptrace_keeper *k;
	u32 len;
	int i;

	for (i = 0; c && i < c->n; i++) {
		len = c->t[i].ok ? c->t[i].len : 0;
		k = st_keeper_get(fr, i, len);
		if (!k || (READ_ONCE(k->has_last) ? k->size < len :
			   snaptrace_keeper_stage_grow(k, len)))
			dev_warn(&fr->rproc->dev,
				 "snaptrace: trace%d: no memory for its crash copy yet\n",
				 i);
	}
	st_publish_grown(fr);
}

static void st_capture_failed(struct st_follow *fr, int index,
			      const char *why)
{
	fr->failures++;
	dev_warn(&fr->rproc->dev,
		 "snaptrace: trace%d not captured: %s (%u failures)\n", index,
		 why, fr->failures);
}

/* A trace's bytes for the capture: in memory the CPU reads, or I/O memory. */
struct st_capture_src {
	void *va;
	bool is_iomem;
};

static int st_capture_read(void *ctx, u32 off, void *dst, u32 n)
{
	struct st_capture_src *src = ctx;

	if (src->is_iomem)
		memcpy_fromio(dst, (void __iomem __force *)src->va + off, n);
	else
		memcpy(dst, src->va + off, n);
	return 0;
}

/* The remote crashed and stops: keep its traces. */
static void st_capture(struct st_follow *fr)
{
	struct rproc *rproc = fr->rproc;
	u64 now = ktime_get_boottime_ns();
	bool got[SNAPTRACE_RPROC_MAX_TRACES] = {};
	const struct st_rsc_traces *c;
	struct st_capture_src src;
	struct snaptrace_keeper *k;
	char head[64];
	unsigned int n = 0;
	u64 bytes = 0;
	bool shutdown;
	int i, ret;

	/*
	 * rproc_shutdown() drops the last power reference before it stops;
	 * rproc_del() (7.3) forces the shutdown whatever the count.
	 */
	shutdown = snaptrace_rproc_deleting(rproc) || !atomic_read(&rproc->power);
	c = st_read_traces(fr);

	/* Each trace copied where no reader looks: without last_lock. */
	for (i = 0; c && i < c->n; i++) {
		if (!c->t[i].ok)
			continue;	/* the check said why */
		k = st_keeper_get(fr, i, c->t[i].len);
		if (!k || snaptrace_keeper_stage_grow(k, c->t[i].len)) {
			st_capture_failed(fr, i, "out of memory");
			continue;
		}
		src.is_iomem = false;
		src.va = rproc_da_to_va(rproc, c->t[i].da, c->t[i].len,
					&src.is_iomem);
		if (!src.va) {
			st_capture_failed(fr, i, "its da is not mapped");
			continue;
		}
		/* fr->crashes changes only here, under the remote's lock */
		scnprintf(head, sizeof(head), "%.*s trace%d: crash #%u", 32,
			  rproc->name, i, fr->crashes + 1);
		ret = snaptrace_keeper_stage_slow(k, head, st_capture_read, &src,
						  c->t[i].len);
		if (ret) {
			st_capture_failed(fr, i, "no room");
			continue;
		}
		got[i] = true;
	}

	/* Every trace of this crash at once, against the readers. */
	mutex_lock(&fr->last_lock);
	for (i = 0; i < fr->nr_traces; i++) {
		k = fr->traces[i];
		if (got[i] && snaptrace_keeper_publish(k)) {
			n++;
			bytes += c->t[i].len;
		} else {
			snaptrace_keeper_publish(k);	/* a grow, alone */
			snaptrace_keeper_forget(k);
		}
	}
	fr->crashes++;
	fr->last_time_ns = now;
	fr->last_after = shutdown ? "shutdown" : "recovery";
	fr->last_traces = n;
	fr->last_bytes = bytes;
	mutex_unlock(&fr->last_lock);
	for (i = 0; i < fr->nr_traces; i++)
		snaptrace_keeper_settle(fr->traces[i]);
	dev_info(&rproc->dev, "snaptrace: crash #%u: %u traces, %llu bytes kept\n",
		 fr->crashes, n, bytes);
}

static int st_subdev_prepare(struct rproc_subdev *subdev)
{
	st_follow_prepare(container_of(subdev, struct st_follow, subdev));
	return 0;	/* a boot never fails for us */
}

static void st_subdev_stop(struct rproc_subdev *subdev, bool crashed)
{
	struct st_follow *fr = container_of(subdev, struct st_follow, subdev);

	/* See the top of this file: the state says it, not @crashed. */
	if (fr->rproc->state == RPROC_CRASHED)
		st_capture(fr);
}

/* ------------------------------------------------------------------ */
/* Following                                                          */

static bool st_name_is(const char *name, const char *p, size_t len)
{
	return strlen(name) == len && !strncmp(p, name, len);
}

/*
 * Whether follow= names @rproc: each entry, spaces around it dropped, is
 * its name or its device's; an empty entry names nothing.
 */
static bool st_follow_match(struct rproc *rproc)
{
	const char *p, *end;
	size_t len;

	if (st_follow_all)
		return true;
	for (p = st_follow_names; p && *p; p = end + (*end == ',')) {
		end = strchrnul(p, ',');
		p = skip_spaces(p);	/* stops at the ',' or NUL at worst */
		len = end - p;
		while (len && isspace(p[len - 1]))
			len--;
		if (len && (st_name_is(rproc->name, p, len) ||
			    st_name_is(dev_name(&rproc->dev), p, len)))
			return true;
	}
	return false;
}

/*
 * Start following @rproc. Under st_follow_lock. A device added while the
 * class interface is being registered may be offered twice: once by
 * class_interface_register()'s walk, once by device_add().
 */
static void st_follow_add(struct rproc *rproc)
{
	struct st_follow *fr;

	list_for_each_entry(fr, &st_follows, node)
		if (fr->rproc == rproc)
			return;
	fr = kzalloc(sizeof(*fr), GFP_KERNEL);
	if (!fr)
		return;	/* not followed; the allocator said why */
	fr->rproc = rproc;
	get_device(&rproc->dev);
	mutex_init(&fr->last_lock);
	fr->last_after = "none";
	fr->fmt = SNAPTRACE_TFMT_AUTO;
	fr->subdev.prepare = st_subdev_prepare;
	fr->subdev.stop = st_subdev_stop;
	st_dir_create(fr, snaptrace_rproc_debugfs_dir());

	mutex_lock(&rproc->lock);
	/*
	 * Already started: its sub-devices are too, and its stop will call
	 * ours; be ready as if we had been prepared.
	 */
	if (rproc->state == RPROC_RUNNING || rproc->state == RPROC_ATTACHED ||
	    rproc->state == RPROC_CRASHED)
		st_follow_prepare(fr);
	rproc_add_subdev(rproc, &fr->subdev);
	mutex_unlock(&rproc->lock);

	list_add_tail(&fr->node, &st_follows);
	dev_info(&rproc->dev, "snaptrace: following its traces\n");
}

/* Let @fr go: off the list already. Under st_follow_lock. */
static void st_follow_del(struct st_follow *fr)
{
	struct rproc *rproc = fr->rproc;
	int i;

	mutex_lock(&rproc->lock);
	rproc_remove_subdev(rproc, &fr->subdev);
	mutex_unlock(&rproc->lock);
	/*
	 * Each keeper's files first, then the directory: debugfs waits for
	 * readers inside them, who may take rproc->lock.
	 */
	for (i = 0; i < fr->nr_traces; i++)
		snaptrace_keeper_free(fr->traces[i]);
	debugfs_remove_recursive(fr->dir);
	kvfree(fr->table);
	mutex_destroy(&fr->last_lock);
	dev_info(&rproc->dev, "snaptrace: no longer following\n");
	kfree(fr);
	put_device(&rproc->dev);
}

static struct rproc *st_dev_to_rproc(struct device *dev)
{
	/* Every device of rproc_class is a struct rproc's own. */
	if (!dev->type || strcmp(dev->type->name, "remoteproc"))
		return NULL;
	return container_of(dev, struct rproc, dev);
}

static int st_follow_add_dev(SNAPTRACE_CLASS_INTF_ARGS)
{
	struct rproc *rproc = st_dev_to_rproc(dev);

	if (!rproc)
		return 0;
	mutex_lock(&st_follow_lock);
	if (st_follow_match(rproc))
		st_follow_add(rproc);
	mutex_unlock(&st_follow_lock);
	return 0;
}

static void st_follow_remove_dev(SNAPTRACE_CLASS_INTF_ARGS)
{
	struct st_follow *fr;

	mutex_lock(&st_follow_lock);
	list_for_each_entry(fr, &st_follows, node) {
		if (&fr->rproc->dev == dev) {
			list_del(&fr->node);
			st_follow_del(fr);
			break;
		}
	}
	mutex_unlock(&st_follow_lock);
}

static struct class_interface st_follow_intf = {
	.add_dev = st_follow_add_dev,
	.remove_dev = st_follow_remove_dev,
};

static bool st_intf_registered;

static const struct rproc_ops st_no_ops;

/*
 * rproc_class, which upstream does not export, from a throw-away rproc:
 * rproc_alloc() sets its class, rproc_free() gives everything back (its
 * index to upstream's ida) as the device was never added. Once per load of
 * snaptrace: the class lives as long as the framework, which cannot go
 * before us (we use its symbols).
 */
static int st_find_rproc_class(void)
{
	struct device *parent;
	struct rproc *rproc;

	if (st_follow_intf.class)
		return 0;
	parent = root_device_register("snaptrace-rproc-class");
	if (IS_ERR(parent))
		return PTR_ERR(parent);
	rproc = rproc_alloc(parent, "snaptrace-class-probe", &st_no_ops, NULL, 0);
	if (!rproc) {
		root_device_unregister(parent);
		return -ENOMEM;
	}
	st_follow_intf.class = rproc->dev.class;
	rproc_free(rproc);
	root_device_unregister(parent);
	return st_follow_intf.class ? 0 : -ENODEV;
}

/**
 * snaptrace_follow_start() - follow upstream's remote processors
 * @follow: "all", "none", or names separated by commas, each an rproc's
 *	name or its device's ("remoteprocN"), spaces around it ignored;
 *	NULL is "all"
 *
 * What module init does with the "follow" parameter: finds the remotes
 * registered with the kernel's remote processor framework, now and later
 * (a class interface on upstream's rproc_class), and follows those named:
 * a sub-device of ours in each keeps its traces at a crash, shown in
 * debugfs remoteproc/<name>/. A name that matches nothing now may match a
 * remote registered later. Upstream has no twin; it mirrors what a
 * platform driver does with rproc_add_subdev().
 *
 * Context: process context, may sleep; not concurrently with
 * snaptrace_follow_stop(). Takes and releases the class's mutex,
 * st_follow_lock and each followed remote's lock.
 * Return: 0 (also for "none", which registers nothing); -EBUSY if already
 * following; -ENOMEM; the error of root_device_register() for the
 * throw-away rproc's parent, or -ENODEV if rproc_alloc() set no class;
 * or the error of class_interface_register().
 */
int snaptrace_follow_start(const char *follow)
{
	int ret = 0;

	if (!follow)
		follow = "all";
	mutex_lock(&st_follow_lock);
	if (st_following) {
		mutex_unlock(&st_follow_lock);
		return -EBUSY;
	}
	st_follow_all = !strcmp(follow, "all");
	if (!st_follow_all) {
		st_follow_names = kstrdup(follow, GFP_KERNEL);
		if (!st_follow_names)
			ret = -ENOMEM;
	}
	if (!ret)
		st_following = true;
	mutex_unlock(&st_follow_lock);
	if (ret || !strcmp(follow, "none"))
		return ret;

	ret = st_find_rproc_class();
	if (!ret)
		ret = class_interface_register(&st_follow_intf);
	if (ret) {
		pr_err("cannot follow the remote processors: %pe\n", ERR_PTR(ret));
		mutex_lock(&st_follow_lock);
		kfree(st_follow_names);
		st_follow_names = NULL;
		st_following = false;
		mutex_unlock(&st_follow_lock);
		return ret;
	}
	st_intf_registered = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_follow_start);

/**
 * snaptrace_follow_stop() - let every followed remote go
 *
 * What rmmod does: removes our sub-device from every followed remote
 * (under its lock, so never in the middle of its start, stop or
 * recovery), removes its files (waiting for their readers), frees its
 * copies and drops its device; running or crashed remotes go on as if we
 * had never followed them. Nothing if not following.
 *
 * Context: process context, may sleep; not concurrently with
 * snaptrace_follow_start(). Takes the class's mutex, then st_follow_lock
 * and each remote's lock.
 */
void snaptrace_follow_stop(void)
{
	if (st_intf_registered)
		class_interface_unregister(&st_follow_intf);
	st_intf_registered = false;
	mutex_lock(&st_follow_lock);
	WARN_ON(!list_empty(&st_follows));
	kfree(st_follow_names);
	st_follow_names = NULL;
	st_following = false;
	mutex_unlock(&st_follow_lock);
}
EXPORT_SYMBOL_IF_KUNIT(snaptrace_follow_stop);
